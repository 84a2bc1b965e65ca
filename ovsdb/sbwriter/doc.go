// Package sbwriter keeps the SB rows that northd owns equal to the
// program's output, in minimal transactions. A Writer holds the desired
// rows (ApplyProgram) and a copy of the SB (ApplySB, from the monitor;
// mirror.go); Reconcile builds the transaction that brings the rows of the
// keys either changed to their desired contents, and touches nothing else.
// The live northd (package ovsdb) feeds the writer and sends its
// transactions: this package talks to no database. One file per group of
// SB tables: writer.go Datapath_Binding, Port_Binding and Multicast_Group;
// flows.go Logical_Flow and Logical_DP_Group; sets.go, lbs.go, ha.go,
// bfd.go, static.go; house.go the clean-up of ovn-controller's rows.
package sbwriter
