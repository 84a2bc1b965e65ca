package relations

import (
	"iter"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// The SB Chassis other_config keys of the features that change logical
// flows (ovn/features.h).
const (
	FeatureCTNoMaskedLabel = "ct-no-masked-label"
	FeatureCTLBRelated     = "ovn-ct-lb-related"
	FeatureCTCommitToZone  = "ct-commit-to-zone"
	FeatureCTNextZone      = "ct-next-zone"
	// FeatureSampleWithRegisters (26.03) is ovn-controller's sample action
	// taking its observation point from a register.
	FeatureSampleWithRegisters = "ovn-sample-with-registers"
	// FeatureCTStateSave (26.03) is ovn-controller's ct_state_save action.
	FeatureCTStateSave = "ct-state-save"
	// FeatureCTCommitNATv2 (26.03) is ovn-controller's ct_commit_nat
	// taking the NAT type, as in ct_commit_nat(snat).
	FeatureCTCommitNATv2 = "ct-commit-nat-v2"
	// FeatureCTLabelFlush (26.03) is ovs-vswitchd flushing conntrack
	// entries by label, which ACL persist-established relies on.
	FeatureCTLabelFlush = "ct-label-flush"
)

// Features are the chassis features the logical flows may rely on: those
// every chassis of the availability zone reports (northd.c
// build_chassis_features). Northd writes flows older controllers
// understand when some chassis lacks one.
type Features struct {
	// CTNoMaskedLabel: the connection's blocked, natted, skip_snat,
	// force_snat and ecmp_reply_port bits live in ct_mark (else ct_label),
	// and load balancing uses ct_lb_mark (else ct_lb).
	CTNoMaskedLabel bool
	// CTLBRelated: traffic related to a load-balanced or allowed connection
	// is NATed (ct_commit_nat), and router load balancing records
	// skip_snat/force_snat in the connection.
	CTLBRelated bool
	// CTCommitToZone and CTNextZone: conntrack commits and lookups name
	// the zone (ct_commit_to_zone, ct_next); 26.03 tracks the traffic of a
	// distributed router's NAT rules in their own zone with them.
	CTCommitToZone bool
	CTNextZone     bool
	// SampleWithRegisters: a sample with one collector is sampled by one
	// flow per collector, whose observation point is in a register (else
	// by flows of each observation point); read by 26.03 only.
	SampleWithRegisters bool
	// CTStateSave: the gateway MTU check saves the conntrack state
	// (ct_state_save) for the too-large-reply flows to read from a
	// register (else they read ct.*); read by 26.03 only.
	CTStateSave bool
	// CTCommitNATv2: a too-large reply's ICMP error is committed for SNAT
	// (ct_commit_nat(snat)) in lr_out_post_snat; read by 26.03 only.
	CTCommitNATv2 bool
	// CTLabelFlush: an allow-related ACL with persist-established writes
	// its SB ACL_ID into the connection's label; read by 26.03 only.
	CTLabelFlush bool
}

// AllFeatures is what northd assumes with no chassis, or with chassis that
// all run an ovn-controller of its release.
var AllFeatures = Features{CTNoMaskedLabel: true, CTLBRelated: true, CTCommitToZone: true, CTNextZone: true,
	SampleWithRegisters: true, CTStateSave: true, CTCommitNATv2: true, CTLabelFlush: true}

// assumesChassisFeatures: 26.03 no longer reads the conntrack label and
// related-traffic features from the chassis; its flows rely on both
// (build_chassis_features no longer lists them).
func assumesChassisFeatures(r schema.Release) bool { return r >= schema.OVN2603 }

// ReadFor is f with the features release r does not read from the chassis
// set: those 26.03 relies on, and in 23.03 those it does not know.
func (f Features) ReadFor(r schema.Release) Features {
	if assumesChassisFeatures(r) {
		f.CTNoMaskedLabel, f.CTLBRelated = true, true
	} else {
		f.CTCommitToZone, f.CTNextZone, f.SampleWithRegisters, f.CTStateSave, f.CTCommitNATv2, f.CTLabelFlush = true, true, true, true, true, true
	}
	return f
}

// readsIgnoreChassisFeatures: 26.03 reads NB_Global
// options:ignore_chassis_features, with which it assumes every feature
// whatever the chassis report (northd_enable_all_features).
func readsIgnoreChassisFeatures(r schema.Release) bool { return r >= schema.OVN2603 }

// IgnoresChassisFeatures tells whether NB_Global options make release
// assume every chassis feature (readsIgnoreChassisFeatures).
func IgnoresChassisFeatures(r schema.Release, options map[string]string) bool {
	return readsIgnoreChassisFeatures(r) && SmapBool(options, "ignore_chassis_features", false)
}

// withIgnoredChassisFeatures is features, or AllFeatures while NB_Global
// options:ignore_chassis_features is true in a release that reads it.
func withIgnoredChassisFeatures(n *NB, features engine.Rel[Features]) engine.Rel[Features] {
	if !readsIgnoreChassisFeatures(n.Release) {
		return features
	}
	ignoring := engine.Map(engine.Filter(n.Global.Rows, func(g *nb.NBGlobal) bool {
		return IgnoresChassisFeatures(n.Release, g.Options)
	}), func(*nb.NBGlobal) struct{} { return struct{}{} })
	byOne := func(struct{}) struct{} { return struct{}{} }
	return engine.Union(
		engine.AntiJoin(engine.IndexBy(features, func(Features) struct{} { return struct{}{} }), engine.IndexBy(ignoring, byOne)),
		engine.Map(ignoring, func(struct{}) Features { return AllFeatures }))
}

// FeaturesOf computes the features from the other_config column of every
// SB Chassis row (EveryChassisHas).
func FeaturesOf(otherConfigs iter.Seq[map[string]string]) Features {
	return Features{
		CTNoMaskedLabel:     EveryChassisHas(otherConfigs, FeatureCTNoMaskedLabel),
		CTLBRelated:         EveryChassisHas(otherConfigs, FeatureCTLBRelated),
		CTCommitToZone:      EveryChassisHas(otherConfigs, FeatureCTCommitToZone),
		CTNextZone:          EveryChassisHas(otherConfigs, FeatureCTNextZone),
		SampleWithRegisters: EveryChassisHas(otherConfigs, FeatureSampleWithRegisters),
		CTStateSave:         EveryChassisHas(otherConfigs, FeatureCTStateSave),
		CTCommitNATv2:       EveryChassisHas(otherConfigs, FeatureCTCommitNATv2),
		CTLabelFlush:        EveryChassisHas(otherConfigs, FeatureCTLabelFlush),
	}
}

// EveryChassisHas reports whether each chassis that is not remote
// (other_config:is-remote) reports feature true in its other_config.
func EveryChassisHas(otherConfigs iter.Seq[map[string]string], feature string) bool {
	for oc := range otherConfigs {
		if !SmapBool(oc, "is-remote", false) && !SmapBool(oc, feature, false) {
			return false
		}
	}
	return true
}

// FeatureInput is the program's input of chassis features, read from the
// SB rather than the NB. Its relation always holds exactly one tuple:
// AllFeatures until Set says otherwise.
type FeatureInput struct {
	in  *engine.Input[Features]
	cur Features
}

func newFeatureInput(c *engine.Circuit) (*FeatureInput, engine.Rel[Features]) {
	in, rel := engine.NewInput[Features](c, "chassis features")
	in.Insert(AllFeatures)
	return &FeatureInput{in: in, cur: AllFeatures}, rel
}

// Set makes f the features from the next Step on.
func (fi *FeatureInput) Set(f Features) {
	fi.in.Update(fi.cur, f)
	fi.cur = f
}

// Get is the features last Set (AllFeatures before any).
func (fi *FeatureInput) Get() Features { return fi.cur }

// Featured is a tuple with the chassis features.
type Featured[T comparable] struct {
	Of       T
	Features Features
}

// WithFeatures pairs every tuple of r with the chassis features: a feature
// change replaces every pair.
func WithFeatures[T comparable](n *NB, r engine.Rel[T]) engine.Rel[Featured[T]] {
	return engine.Join(engine.IndexBy(r, func(T) struct{} { return struct{}{} }), n.featuresByOne,
		func(_ struct{}, t T, f Features) Featured[T] { return Featured[T]{Of: t, Features: f} })
}
