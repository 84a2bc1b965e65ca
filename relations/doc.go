// Package relations holds the typed inputs of northlog's rules: the NB and SB
// table models (sub-packages nb and sb, generated from the union of the
// releases' schemas, see relations/schema) and the parsers that read port
// addresses and router port networks exactly as ovn-northd 23.03 does
// (ParseLSPAddresses, ParseLRPNetworks, ...).
package relations
