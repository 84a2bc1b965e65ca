// Package rules is the northd program: the logical flow families and the
// other SB rows ovn-northd writes, as rules over the NB relations.
//
// # One program, several releases
//
// The program reproduces one OVN release's northd, chosen when it is built
// (NewFor; relations.NB.Release) and, by the callers in package ovsdb, from
// the NB database's schema version (schema.ForNB: 7.0.0 is 23.03, 7.18.0
// is 26.03; a version in between is refused, naming those supported), or
// forced. What differs between releases lives in three places, none of
// them a copy of a rule file:
//
//   - The stage table (stages.go). A Stage is a stage's identity, named as
//     northd.c names it, the same in every release that has it; each
//     release's StageTable lists its four pipelines' stages in order, as
//     that release's PIPELINE_STAGES does, and a stage's table number is its
//     index there. Nothing else holds a number: SB table_id, dumps and the
//     actions that name a table (next(pipeline=..., table=N)) resolve a
//     stage through the program's stage table. A stage that
//     one release lacks (ls_in_acl in 26.03, ls_in_acl_eval in 23.03) is not
//     valid there: the program drops a flow on it. Inserting a stage, a
//     built-in one of a new release or an embedding program's own, is a
//     change to an ordered list; the tables after it renumber themselves.
//   - Named predicates on the release, next to the rule whose flow they
//     change, for a difference of a few words in a match or an action.
//   - Per-release rule variants, where a flow family really changed (the
//     ACL stages split into eval, sample and action in 26.03): the rule
//     picks its variant by nb.Release; the variants share the helpers that
//     did not change and sit in the file of the family's stages.
//
// A third release adds its schemas (relations/schema), its stage table
// (stages.go), and predicates or variants where its flows differ.
//
// The NB models (relations/nb) are generated from 23.03's schema; an NB
// database of 26.03's is read through them, its tables and columns that
// 23.03 lacks left aside until a rule reads them.
//
// # Writing a rule
//
// A Rule of an embedding program reads the relations of a relations.NB and
// maps what it finds to Flows, with the operators of package engine
// (Filter, Map, FlatMap; IndexBy and Join to join two relations on a key):
//
//   - Which relation. For flows on a port's switch, nb.PortsOnSwitches:
//     the ports northd binds, one per name (nb.LSPs adds their parsed
//     addresses, nb.ListedSwitchPorts is every switch/port pair a ports
//     column lists, a name claimed twice included, nb.SwitchPorts the raw
//     table). For router ports, nb.LRPs (nb.PortsOnRouters as listed); for
//     datapaths, nb.SwitchDatapaths and nb.RouterDatapaths; any NB table's
//     rows are nb.<Table>.Rows. A table of the program's own beside the NB
//     is an input the rule adds to nb.Circuit (engine.NewInput).
//   - Datapath. A Flow's Datapath is the switch's or router's NB _uuid
//     (relations.SwitchPort.Switch).
//   - Stage. A built-in one (LSInACL, ...), or one of the program's own:
//     NewStage declares it, StageTable.With places it, NewWith builds the
//     program with that table.
//   - Priority. On a built-in stage, pick one that no built-in flow of the
//     stage has: two flows of one priority that match the same packet
//     tie, and ovn-controller runs either. The built-in flows of a stage
//     mostly take a few fixed priorities (0 is the default), but some
//     take bands. The 23.03 ACL stages: 1000 plus the ACL's priority
//     (1000 to 33767), 34000 for the service monitor and DHCP/DNS
//     replies, 65532 for conntrack states and IPv6 neighbour discovery,
//     and 65535 passing everything on a switch with neither ACLs nor load
//     balancers (no flow of one's own below it runs there).
//     lr_in_ip_routing: the prefix length times 3 (23.03) or 8 (26.03)
//     plus an offset. lr_in_policy: the policy's own priority.
//     ruletest.Ties checks a rule against the built-in flows.
//
// New adds rules to the built-in ones; NewFrom builds a program of exactly
// the rules given, so Builtin("SwitchPortSecurityFlows") plus a rule of
// one's own replaces that family. Package rules/ruletest checks a rule's
// flows, kept incrementally, against a recompute.
package rules
