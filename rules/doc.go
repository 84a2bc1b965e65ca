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
//     actions that name a table (next(pipeline=..., table=N), through
//     tableIn) resolve a stage through the program's release. A stage that
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
// A third release adds its schemas (relations/schema), a releaseStages
// entry, and predicates or variants where its flows differ.
//
// The NB models (relations/nb) are generated from 23.03's schema; an NB
// database of 26.03's is read through them, its tables and columns that
// 23.03 lacks left aside until a rule reads them.
package rules
