// Package ovsdb is northlog's bridge to OVSDB databases. ReadDatabaseFile
// and LoadNB read a database file offline, as ovsdb-server would load it.
// NewNorthd runs the live northd against NB and SB servers.
package ovsdb
