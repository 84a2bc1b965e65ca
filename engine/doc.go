// Package engine is a small incremental relational engine in the style of
// DBSP (Budiu et al., "DBSP: Automatic Incremental View Maintenance").
//
// A relation is a Z-set: a map from tuple to integer weight, where a positive
// weight counts copies of a tuple and zero weights are never stored. A change
// to a relation is a Z-set too (+1 inserts a tuple, −1 deletes it), so a
// relation is the running sum — the integral — of its changes, and a change is
// the difference of two consecutive relations.
//
// A program is a Circuit of operators, built once in dependency order from
// inputs (NewInput) to outputs (NewOutput). Each Circuit.Step takes the changes
// buffered on the inputs and pushes them through every operator once, so each
// operator sees only the change of its inputs and produces only the change of
// its output; the cost of a step follows the size of the change, not the size
// of the relations.
//
//   - Linear operators (Map, TryMap, Filter, Partition, SplitBy, FlatMap, Union, Negate) compute
//     their output change from their input change alone: Q(ΔA).
//   - Join (and JoinFlatMap) is bilinear. Its inputs are arrangements (Index): the integrated
//     contents of a relation, grouped by a key, kept once and shared by every
//     operator that reads that relation by that key. A step computes
//     Δ(A⋈B) = ΔA⋈B + A⋈ΔB + ΔA⋈ΔB, where A and B are the contents before the
//     step; arrangements integrate their change only after every operator has
//     run. LeftJoin (and LeftJoinFlatMap) is a Join and an AntiJoin of the
//     same arrangements in one operator.
//   - Non-linear operators (Distinct, SemiJoin, AntiJoin, GroupBy and the
//     aggregates built on it) keep integrated state and, for each tuple or key
//     the change touches, retract what they emitted before and insert what
//     they emit now — only where the result actually changed.
//
// Outputs integrate their input into a set (weights above zero count once) and
// report each step's net change, sorted, for a consumer to apply; or, once
// told to keep nothing (a consumer keeping what it needs itself), pass their
// input's change on as it comes.
//
// Full recompute is the same circuit built afresh and fed the whole current
// input as one change; the tests check, after every random step, that the
// incrementally maintained outputs equal that recompute.
//
// Circuit.StateSizes reports what each operator keeps; Circuit.CountOps and
// OpStats, what each did in the steps since (runs, tuples in and out, time).
//
// User functions that can fail (TryMap; Report, which only checks) reject a
// tuple with an error: the tuple yields nothing from TryMap, the rejection
// is returned by Step, and the step goes on. A Circuit is not safe for
// concurrent use.
package engine
