package ovsdb

import (
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/relations"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	"github.com/ovn-org/libovsdb/model"
)

// Offline is the result of computing logical flows from an NB database file
// with no server running.
type Offline struct {
	// Stages are those of the release computed for, which number the
	// flows' tables.
	Stages *rules.StageTable
	// Flows are one per datapath (rules.FlowsByDatapath).
	Flows []rules.Flow
	// hinted are the flows with the duplicates Flows leaves out, each NB
	// row's (rules.FlowsOnEachDatapath).
	hinted []rules.Flow
	// Names maps each datapath's NB _uuid to its NB name, and each router
	// port's, whose tunnel keys flows may hold (rules.KeyRef): the canonical
	// form names keys.
	Names map[string]string
	// Rejected lists the NB rows the rules skipped as malformed.
	Rejected []*engine.Rejected
	// Diagnostics are the lines northd logs about the NB's configuration.
	Diagnostics []relations.Diagnostic
	// Warning is set when the file ended in a damaged record that was ignored.
	Warning error
}

// Canonical is the flows in the canonical dump form (see rules.Canonical).
func (o *Offline) Canonical() []string {
	return rules.Canonical(o.Stages, rules.ResolveFlowKeys(o.Flows, o.RefName), o.Names)
}

// RefName names what a tunnel key reference in flow text stands for
// (rules.RefName), "" when unknown.
func (o *Offline) RefName(ref string) string {
	n, _ := rules.RefName(ref, func(u string) (string, bool) {
		n, ok := o.Names[u]
		return n, ok
	})
	return n
}

// StageHints maps each flow's canonical line (Canonical) to the
// stage-hints (rules.Flow.StageHint, "" for none) of the flows behind it,
// sorted: one, or several where NB rows give the same flow.
func (o *Offline) StageHints() map[string][]string {
	return o.valuesByLine(rules.Flow.StageHint)
}

// FlowTags maps each flow's canonical line (Canonical) to the
// rules.TagsLine of the flows behind it, sorted: one, or several where
// ports or NB rows give the same flow and the SB row has whichever northd
// builds first. The release's SB writes flow_desc only from 26.03 on.
func (o *Offline) FlowTags() map[string][]string {
	withDesc := o.Stages.Release() >= schema.OVN2603
	return o.valuesByLine(func(f rules.Flow) string {
		if !withDesc {
			f.Desc = ""
		}
		return rules.TagsLine(f.InOutPort, f.CTTranslation, f.Desc)
	})
}

// valuesByLine maps each flow's canonical line to the distinct value(f) of
// the flows behind it, sorted.
func (o *Offline) valuesByLine(value func(rules.Flow) string) map[string][]string {
	values := map[string][]string{}
	for _, f := range rules.ResolveFlowKeys(o.hinted, o.RefName) {
		l := rules.CanonicalLine(o.Stages, f, o.Names)
		if v := value(f); !slices.Contains(values[l], v) {
			values[l] = append(values[l], v)
		}
	}
	for _, vs := range values {
		slices.Sort(vs)
	}
	return values
}

// ComputeFromFile loads a standalone OVN_Northbound database file into a
// fresh program (the built-in rules plus extra) for the release the file's
// schema version names, and computes its flows in one step, for chassis
// that support every feature (as with no chassis).
func ComputeFromFile(path string, extra ...rules.Rule) (*Offline, error) {
	return Compute(path, ComputeOptions{}, extra...)
}

// ComputeOptions are the choices ComputeFromFile makes for itself.
type ComputeOptions struct {
	// Features, when set, are the chassis features (see
	// relations.FeaturesOf); otherwise every one.
	Features *relations.Features
	// Release, when set, is the release to compute for, whatever the
	// file's schema version.
	Release *schema.Release
	// LearnedRoutes are the SB Learned_Route rows ovn-controller wrote
	// (none when unset).
	LearnedRoutes []relations.LearnedRoute
	// QueueIDs are the qdisc_queue_ids the SB's port bindings hold, by
	// logical port, which ports with QoS options keep (none when unset:
	// they get new ones).
	QueueIDs map[string]int
	// RemoteChassisNames are the names under which a remote SB Chassis is
	// found (relations.RemoteChassisNames; none when unset).
	RemoteChassisNames []string
}

// ComputeWithFeatures is ComputeFromFile for chassis that support features
// f.
func ComputeWithFeatures(path string, f relations.Features, extra ...rules.Rule) (*Offline, error) {
	return Compute(path, ComputeOptions{Features: &f}, extra...)
}

// Compute is ComputeFromFile with the choices of o.
func Compute(path string, o ComputeOptions, extra ...rules.Rule) (*Offline, error) {
	contents, err := LoadNB(path)
	if err != nil {
		return nil, err
	}
	release := contents.Release
	if o.Release != nil {
		release = *o.Release
	}
	features := relations.AllFeatures
	if o.Features != nil {
		features = *o.Features
	}
	p := rules.NewFor(release, extra...)
	p.Features.Set(features)
	for _, r := range o.LearnedRoutes {
		p.NB.SetLearnedRoute(r, true)
	}
	for port, id := range o.QueueIDs {
		p.NB.SetBoundQueueID(relations.BoundQueueID{Port: port, ID: id}, true)
	}
	for _, name := range o.RemoteChassisNames {
		p.NB.SetRemoteChassisName(name, true)
	}
	names := map[string]string{}
	for table, row := range contents.All() {
		if err := p.NB.Apply(table, nil, row); err != nil {
			return nil, err
		}
		if uuid, name, ok := datapathName(row); ok {
			names[uuid] = name
		}
	}
	rejected := p.Step()
	return &Offline{Stages: p.Stages, Flows: p.FlowsByDatapath(), hinted: p.FlowsOnEachDatapath(), Names: names, Rejected: rejected,
		Diagnostics: p.Diagnostics.Contents(), Warning: contents.Warning}, nil
}

// datapathName is the NB name of a row that is a datapath or a router port.
func datapathName(row model.Model) (uuid, name string, ok bool) {
	switch dp := row.(type) {
	case *nb.LogicalSwitch:
		return dp.UUID, dp.Name, true
	case *nb.LogicalRouter:
		return dp.UUID, dp.Name, true
	case *nb.LogicalRouterPort:
		return dp.UUID, dp.Name, true
	}
	return "", "", false
}
