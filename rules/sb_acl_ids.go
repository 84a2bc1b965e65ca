package rules

import (
	"strings"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// ACL ids in flow text. From 26.03 northd gives each allow-related ACL
// with options:persist-established an id of the SB ACL_ID table, whose row
// takes the ACL's UUID (en-acl-ids.c), and its flow writes the id into the
// connection's label. Ids are allocated when the SB is written, as tunnel
// keys are: rules write ACLIDRef(ACL _uuid) where the id goes, the SB
// writer replaces it with the row's id, and the canonical form of offline
// flows with CanonicalACLID, as the reference dump writes the ids it finds
// in ACL_ID.
const aclIDRef = "acl-id:"

// ACLIDRef stands for the SB ACL_ID id of the ACL with NB _uuid uuid in
// flow text.
func ACLIDRef(uuid string) string { return KeyRef(ACLIDKey(uuid)) }

// ACLIDKey is the reference ResolveKeys passes its key function for
// ACLIDRef(uuid).
func ACLIDKey(uuid string) string { return aclIDRef + uuid }

// ACLOfIDRef is the NB _uuid of the ACL whose id a reference in flow text
// (what ResolveKeys passes its key function) stands for; false for a
// tunnel key's.
func ACLOfIDRef(ref string) (string, bool) { return strings.CutPrefix(ref, aclIDRef) }

// CanonicalACLID is how the canonical form writes the id of the ACL with
// NB _uuid uuid.
func CanonicalACLID(uuid string) string { return "acl-id(" + uuid + ")" }

// persistsACLIDs: 26.03 keeps ACL ids (en-acl-ids.c); 23.03 has no
// ACL_ID table.
func persistsACLIDs(r schema.Release) bool { return r >= schema.OVN2603 }

// persistsEstablished reports whether ACL a gets an SB ACL_ID: an
// allow-related ACL with options:persist-established, whether or not a
// switch uses it (should_sync_to_sb).
func persistsEstablished(a *nb.ACL) bool {
	return a.Action == nb.ACLActionAllowRelated && relations.SmapBool(a.Options, "persist-established", false)
}

// SBACLIDs computes the NB _uuids of the ACLs that get an SB ACL_ID row
// (en_acl_id_run); the writer allocates their ids.
func SBACLIDs(n *relations.NB) engine.Rel[string] {
	persists := persistsACLIDs(n.Release)
	return engine.Map(engine.Filter(n.ACLs.Rows, func(a *nb.ACL) bool { return persists && persistsEstablished(a) }),
		func(a *nb.ACL) string { return a.UUID })
}

// aclPersistID is the part of an allow-related ACL's new-connection
// actions that records its id for the connection (consider_acl), "" unless
// it persists established connections and every chassis can flush
// conntrack by label.
func aclPersistID(x aclOnSwitch) string {
	if !persistsEstablished(x.ACL) || !x.Facts.Features.CTLabelFlush {
		return ""
	}
	return regACLID + " = " + ACLIDRef(x.ACL.UUID) + "; " + regACLPersistID + " = 1; "
}
