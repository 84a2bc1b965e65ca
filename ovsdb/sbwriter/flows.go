package sbwriter

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/internal/setindex"
	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/sb"
	"github.com/northlog/northlog/relations/schema"
	"github.com/northlog/northlog/rules"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"
)

// flowPlan is what one flow key needs: its kept row (when kept, else one
// to insert) and the datapath rows it must be on, sorted. The key is
// resolveDirty's: a cold start plans every flow, and a key is 64 bytes.
type flowPlan struct {
	key    *flowKey
	target []string
	row    uuid.UUID
	kept   bool
}

func compareFlowKeys(a, b flowKey) int {
	return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Priority, b.Priority),
		cmp.Compare(a.Match, b.Match), cmp.Compare(a.Actions, b.Actions),
		cmp.Compare(a.Meter, b.Meter), rules.CompareBools(a.HasMeter, b.HasMeter))
}

// reconcileFlows: one Logical_Flow per desired flow key, as 23.03 writes
// it: on its datapath's row (logical_datapath) when it has one datapath,
// else on a Logical_DP_Group holding exactly its datapaths, shared by all
// the flows on those datapaths. A row already there stays whatever wrote
// it; only its datapath columns change when its datapaths do. When every
// flow of a group moves to the same new set of datapaths (a switch added or
// removed), the group row itself is changed instead of every flow.
func (w *Writer) reconcileFlows(t *Txn) {
	effective := map[uuid.UUID][]string{}
	effectiveOf := func(g uuid.UUID) []string {
		if e, ok := effective[g]; ok {
			return e
		}
		var e []string
		if grp := w.m.groups[g.String()]; grp != nil {
			for _, u := range grp.Datapaths {
				if w.keptDP(t, u) {
					e = append(e, u)
				}
			}
		}
		slices.Sort(e)
		effective[g] = e
		return e
	}
	// The flows of one load balancer on a set of hundreds of datapaths
	// are tens of thousands of keys: those on the same datapaths share
	// their target, never modified.
	targets := map[string][]string{}
	targetOf := func(k flowKey) []string {
		dps := w.flows[k].dps
		id := strings.Join(dps, ",")
		if target, ok := targets[id]; ok && len(w.byResolved[k]) == 0 {
			return target
		}
		target := w.datapathRefs(t, nil, dps)
		for u := range w.byResolved[k] {
			target = w.datapathRefs(t, target, w.flows[u].dps)
		}
		slices.Sort(target)
		target = slices.Compact(target)
		if len(w.byResolved[k]) == 0 {
			targets[id] = target
		}
		return target
	}
	// A restart marks every key dirty: only the plans of the rows to
	// insert or change are kept, not hundreds of thousands of no-ops.
	var plans []flowPlan
	keys := w.resolveDirty(t)
	if w.rows[sb.LogicalFlowTable] == 0 {
		// Into an SB without flows every key is planned: grown by
		// doubling, the list would leave as much again as garbage.
		plans = make([]flowPlan, 0, len(keys))
	}
	for i, k := range keys {
		target := targetOf(k)
		keep, kept := keepFirstFlow(t, w.flows[k].rows, len(target) > 0)
		if len(target) > 0 && (!kept || !w.flowOn(keep, target, effectiveOf)) {
			plans = append(plans, flowPlan{key: &keys[i], target: target, row: keep, kept: kept})
		}
	}
	w.mutateGroups(t, plans)
	for _, p := range plans {
		if !p.kept {
			w.insertFlow(t, p)
			continue
		}
		// The row is not on its target (flowOn), unless mutateGroups
		// changed its group to it.
		row := p.row.String()
		if len(p.target) == 1 {
			t.Update(sb.LogicalFlowTable, row, lovsdb.Row{
				"logical_datapath": optUUID(p.target[0]), "logical_dp_group": optUUID("")})
			continue
		}
		f := w.m.flows[p.row]
		_, onDP := f.datapath()
		if g, ok := f.dpGroup(); !onDP && ok && t.mutated[g.String()] == strings.Join(p.target, ",") {
			continue
		}
		t.Update(sb.LogicalFlowTable, row, lovsdb.Row{
			"logical_datapath": optUUID(""), "logical_dp_group": optUUID(w.groupFor(t, p.target))})
	}
}

// keepFirstFlow is Txn.keepFirst for the rows of one flow key: ok false
// when none is kept.
func keepFirstFlow(t *Txn, rows []uuid.UUID, wanted bool) (keep uuid.UUID, ok bool) {
	for i, u := range rows {
		if i == 0 && wanted {
			keep, ok = u, true
			continue
		}
		t.delete(sb.LogicalFlowTable, u.String())
	}
	return keep, ok
}

// flowOn reports whether flow row u is on exactly the datapath rows
// target already: on the one as its logical_datapath, or on a group whose
// kept datapaths (effectiveOf) they are. Such a row's plan changes
// nothing: mutateGroups counts only the flows that move, and a group with
// one that stays is not mutated.
func (w *Writer) flowOn(u uuid.UUID, target []string, effectiveOf func(uuid.UUID) []string) bool {
	f := w.m.flows[u]
	dp, onDP := f.datapath()
	group, onGroup := f.dpGroup()
	if len(target) == 1 {
		t, ok := rowUUID(target[0])
		return ok && onDP && dp == t && !onGroup
	}
	return !onDP && onGroup && slices.Equal(effectiveOf(group), target)
}

// datapathRefs appends to refs the SB rows of the datapaths in wanted, a
// desired flow's dps, that have one.
func (w *Writer) datapathRefs(t *Txn, refs, wanted []string) []string {
	add := func(nb string) {
		if ref := w.dpRef(t, nb); ref != "" {
			refs = append(refs, ref)
		}
	}
	for _, nb := range wanted {
		if !rules.IsDatapathSet(nb) {
			add(nb)
			continue
		}
		for m := range w.setMembers[nb] {
			add(m)
		}
	}
	return refs
}

// keptDP reports whether SB datapath row u stays, for a desired datapath.
func (w *Writer) keptDP(t *Txn, u string) bool {
	dp := w.m.dps[u]
	if dp == nil || t.deletedDP[u] {
		return false
	}
	nb, _, ok := dpNB(dp)
	return ok && w.dpRef(t, nb) == u
}

// mutateGroups changes the datapaths of each group whose flows all move
// to the same new set, when no group holds that set yet; plans are of the
// flows that move.
func (w *Writer) mutateGroups(t *Txn, plans []flowPlan) {
	type move struct {
		target []string
		n      int
		mixed  bool
	}
	moves := map[string]*move{}
	for _, p := range plans {
		if !p.kept || len(p.target) < 2 {
			continue
		}
		f := w.m.flows[p.row]
		_, onDP := f.datapath()
		group, onGroup := f.dpGroup()
		if onDP || !onGroup {
			continue
		}
		g := group.String()
		m := moves[g]
		switch {
		case m == nil:
			moves[g] = &move{target: p.target, n: 1}
		case slices.Equal(m.target, p.target):
			m.n++
		default:
			m.mixed = true
		}
	}
	for _, g := range slices.Sorted(maps.Keys(moves)) {
		m := moves[g]
		content := strings.Join(m.target, ",")
		// A group that load balancers use too stays theirs.
		if m.mixed || m.n != w.m.groupFlowCount(g) || len(w.lbs.byDPG[g]) > 0 || t.newGroups[content] != "" || w.existingGroup(t, m.target) != "" {
			continue
		}
		t.mutate(sb.LogicalDPGroupTable, g, groupMutations(w.m.groups[g].Datapaths, m.target)...)
		t.newGroups[content] = g
		t.mutated[g] = content
	}
}

// groupMutations turn a Logical_DP_Group's datapaths from have into want;
// sets, not the lists, answer membership (a group of a thousand switches).
func groupMutations(have, want []string) []lovsdb.Mutation {
	haveSet, wantSet := setOf(have), setOf(want)
	return memberMutations("datapaths", slices.Values(slices.Concat(have, want)), wantSet.has, haveSet.has, uuidSet)
}

// existingGroup is a group row in the SB that holds exactly dps, is not
// being changed and is no load balancer's (which may change it), or "".
func (w *Writer) existingGroup(t *Txn, dps []string) string {
	for _, g := range w.m.groupsByContent[strings.Join(dps, ",")] {
		if _, changed := t.mutated[g]; !changed && len(w.lbs.byDPG[g]) == 0 {
			return g
		}
	}
	return ""
}

// groupFor is the group row that holds exactly dps in the transaction: one
// being changed to hold them, one already holding them, or a new one.
func (w *Writer) groupFor(t *Txn, dps []string) string {
	content := strings.Join(dps, ",")
	if g, ok := t.newGroups[content]; ok {
		return g
	}
	g := w.existingGroup(t, dps)
	if g == "" {
		g = t.Insert(sb.LogicalDPGroupTable, lovsdb.Row{"datapaths": uuidSet(dps)})
	}
	t.newGroups[content] = g
	return g
}

// rowTags are what a desired flow gives its SB row beside its key: its
// rules.Flow.InOutPort, Hint, Desc and CTTranslation.
type rowTags struct {
	port, hint, desc string
	ctTranslation    bool
}

func tagsOf(f rules.Flow) rowTags {
	return rowTags{f.InOutPort, f.StageHint(), f.Desc, f.CTTranslation}
}

func compareRowTags(a, b rowTags) int {
	return cmp.Or(cmp.Compare(a.port, b.port), cmp.Compare(a.hint, b.hint), cmp.Compare(a.desc, b.desc),
		rules.CompareBools(a.ctTranslation, b.ctTranslation))
}

// flowEntry is what the writer knows of one flow key: what the desired
// flows with it ask of its row, their NB datapaths and datapath sets
// (rules.IsDatapathSet), sorted, and their counts by rowTags; and the SB
// rows with the key, sorted. One map entry holds all three: at 25,000
// ports there are hundreds of thousands of keys, each hashed whole at
// every lookup.
type flowEntry struct {
	dps  []string
	tags tagCounts
	rows []uuid.UUID
}

// storeFlow sets key k's entry in flows to e, or deletes it when e holds
// nothing.
func storeFlow(flows map[flowKey]flowEntry, k flowKey, e flowEntry) {
	if len(e.dps) == 0 && len(e.tags) == 0 && len(e.rows) == 0 {
		delete(flows, k)
	} else {
		flows[k] = e
	}
}

// wantedFlows drops the SB rows from the flow entries, for a new mirror,
// and returns them.
func (w *Writer) wantedFlows() map[flowKey]flowEntry {
	for k, e := range w.flows {
		e.rows = nil
		storeFlow(w.flows, k, e)
	}
	return w.flows
}

// tagCounts count desired flows by their rowTags: almost every key has
// one, so a short list rather than a map.
type tagCounts []tagCount

type tagCount struct {
	tags rowTags
	n    engine.Weight
}

// count counts weight more flows with tags tags, and returns the counts.
func (counts tagCounts) count(tags rowTags, weight engine.Weight) tagCounts {
	i := slices.IndexFunc(counts, func(c tagCount) bool { return c.tags == tags })
	if i < 0 {
		i = len(counts)
		counts = append(counts, tagCount{tags: tags})
	}
	if counts[i].n += weight; counts[i].n <= 0 {
		counts = slices.Delete(counts, i, i+1)
	}
	return counts
}

// rowTagsOf is the tags of a new row of key k: the smallest, by in_out_port
// then stage-hint, of the desired flows written under k, as
// rules.FlowsByDatapath keeps (zero for none).
func (w *Writer) rowTagsOf(k flowKey) rowTags {
	var least rowTags
	found := false
	consider := func(counts tagCounts) {
		for _, c := range counts {
			if !found || compareRowTags(c.tags, least) < 0 {
				least, found = c.tags, true
			}
		}
	}
	for u := range w.byResolved[k] {
		consider(w.flows[u].tags)
	}
	consider(w.flows[k].tags)
	return least
}

// insertFlow inserts a Logical_Flow row, with its controller_meter,
// tags:in_out_port and external_ids: the stage-name and stage-hint, as
// 23.03's, and 26.03's flow_desc and tags:acl_ct_translation; not source (the northd.c line that built it), which rules.Flow
// does not carry. external_ids and tags are no part of a flow's key: a row
// kept, 23.03's say, keeps them as they are, as 23.03 does while
// northd_internal_version stays.
func (w *Writer) insertFlow(t *Txn, p flowPlan) {
	tags := w.rowTagsOf(*p.key)
	row := t.insertRow()
	row["pipeline"] = p.key.Stage.Pipeline().String()
	row["table_id"] = w.stages.Table(p.key.Stage)
	row["priority"] = p.key.Priority
	row["match"] = p.key.Match
	row["actions"] = p.key.Actions
	row["external_ids"] = w.flowExternalIDs(p.key.Stage, tags.hint)
	if p.key.HasMeter {
		row["controller_meter"] = wire.OptString(p.key.Meter, true)
	}
	if tags.port != "" || tags.ctTranslation {
		rowTags := map[any]any{}
		if tags.port != "" {
			rowTags["in_out_port"] = tags.port
		}
		if tags.ctTranslation {
			rowTags["acl_ct_translation"] = "true"
		}
		row["tags"] = lovsdb.OvsMap{GoMap: rowTags}
	}
	// 23.03's SB has no flow_desc column.
	if tags.desc != "" && w.stages.Release() >= schema.OVN2603 {
		row["flow_desc"] = wire.OptString(tags.desc, true)
	}
	if len(p.target) == 1 {
		row["logical_datapath"] = optUUID(p.target[0])
	} else {
		row["logical_dp_group"] = optUUID(w.groupFor(t, p.target))
	}
	t.insertUnnamed(sb.LogicalFlowTable, row)
}

// flowExternalIDs is the external_ids of a flow of stage s with
// stage-hint hint. Those without a hint share one value per stage among
// the operations that insert flows (encoded, never modified).
func (w *Writer) flowExternalIDs(s rules.Stage, hint string) lovsdb.OvsMap {
	if hint != "" {
		return lovsdb.OvsMap{GoMap: map[any]any{"stage-name": s.Name(), "stage-hint": hint}}
	}
	ids, ok := w.stageIDs[s]
	if !ok {
		ids = wire.StrMap(map[string]string{"stage-name": s.Name()})
		w.stageIDs[s] = ids
	}
	return ids
}

// keyRefs lists the NB _uuids whose tunnel keys a flow's text holds
// (rules.KeyRef).
func keyRefs(k flowKey) []string {
	var refs []string
	collect := func(u string) string {
		refs = append(refs, u)
		return ""
	}
	rules.ResolveKeys(k.Match, collect)
	rules.ResolveKeys(k.Actions, collect)
	return refs
}

// markKeyUsers marks the flows and the named sets that hold the tunnel key
// of NB row u.
func (w *Writer) markKeyUsers(u string) {
	for k := range w.keyUsers[u] {
		w.markFlow(k)
	}
	w.addrSets.markKeyUsers(u)
	w.portGroups.markKeyUsers(u)
}

// markPortKeyUsers marks the flows that hold the tunnel key of a port. It
// looks up the port's references rather than naming every reference held.
func (w *Writer) markPortKeyUsers(name string) {
	for _, u := range rules.RefsNamed(name, w.ports.UUIDs) {
		w.markKeyUsers(u)
	}
}

// resolve is the SB key of a desired flow: its text with the tunnel keys
// it holds written in (those given in the transaction, else those in the
// SB); false when a key is unknown.
func (w *Writer) resolve(t *Txn, k flowKey) (flowKey, bool) {
	ok := true
	key := func(u string) string {
		if n := w.tunnelKey(t, u); n != 0 {
			return strconv.Itoa(n)
		}
		ok = false
		return ""
	}
	k.Match, k.Actions = rules.ResolveKeys(k.Match, key), rules.ResolveKeys(k.Actions, key)
	return k, ok
}

// tunnelKey is the tunnel key of the datapath or port with NB _uuid u, or
// the id of an ACL (rules.ACLIDRef); 0 when it has none.
func (w *Writer) tunnelKey(t *Txn, u string) int {
	if acl, ok := rules.ACLOfIDRef(u); ok {
		return w.aclIDs.id(acl)
	}
	if n, ok := t.dpKey[u]; ok {
		return n
	}
	if ref := w.dpRef(t, u); ref != "" {
		return w.m.dps[ref].TunnelKey
	}
	name, ok := rules.RefName(u, w.ports.Name)
	if !ok {
		return 0
	}
	if n, ok := t.pbKey[name]; ok {
		return n
	}
	if ref := w.pbRef(t, name); ref != "" && w.m.pbs[ref] != nil {
		return w.m.pbs[ref].TunnelKey
	}
	return 0
}

// resolveDirty turns the dirty flow keys into SB keys, sorted: a flow that
// holds tunnel keys is written under its text with the keys in, and the SB
// key it was written under before, if another, is dirty too. A list, not a
// set: at a cold start every flow's key is dirty.
func (w *Writer) resolveDirty(t *Txn) []flowKey {
	out := make([]flowKey, 0, w.dirtyFlows())
	for k := range w.dirtyFlowKeys() {
		if len(keyRefs(k)) == 0 {
			out = append(out, k)
			continue
		}
		if old, ok := w.resolved[k]; ok {
			out = append(out, old)
			setindex.Remove(w.byResolved, old, k)
			delete(w.resolved, k)
		}
		rk, ok := w.resolve(t, k)
		if !ok || len(w.flows[k].dps) == 0 {
			continue
		}
		out = append(out, rk)
		w.resolved[k] = rk
		setindex.Add(w.byResolved, rk, k)
	}
	slices.SortFunc(out, compareFlowKeys)
	return slices.Compact(out)
}
