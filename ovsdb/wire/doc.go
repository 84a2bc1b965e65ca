// Package wire is northlog's OVSDB client: a JSON-RPC session (RFC 7047)
// with one monitor on one database, whose updates come whole, one
// committed transaction at a time, as libovsdb models; transactions
// written as they are made; the OVSDB lock; the inactivity probe; and the
// backoff of retries. It knows nothing of OVN: the ovsdb package is the
// bridge that feeds northd's relations from it.
package wire
