// Package ovsdb is northlog's bridge to OVSDB databases. ReadDatabaseFile
// and LoadNB read a database file offline, as ovsdb-server would load it.
// NewNorthd runs the live northd against NB and SB servers: it feeds the
// program from the NB, and writes the NB columns northd owns; the SB rows
// are the writer's of package sbwriter, whose transactions it commits.
// It is the only package that talks to a database: wire is its client,
// sbwriter builds SB transactions and never sends them.
package ovsdb
