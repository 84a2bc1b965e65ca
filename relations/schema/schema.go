// Package schema holds the OVN 23.03.1 database schemas, as the ovn-central
// package installs them in /usr/share/ovn: the source of the models in
// relations/nb and relations/sb, and what the embedded servers serve.
package schema

import _ "embed"

var (
	// NB is ovn-nb.ovsschema (OVN_Northbound 7.0.0).
	//go:embed ovn-nb.ovsschema
	NB []byte
	// SB is ovn-sb.ovsschema (OVN_Southbound 20.27.0).
	//go:embed ovn-sb.ovsschema
	SB []byte
)
