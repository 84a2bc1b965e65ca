package wire

import (
	"crypto/tls"
	"strings"
	"testing"
)

// TestTLSVersionRange: OVS's --ssl-protocols lists map to Go's version
// ranges, TLSv1.3 with TLSv1.2 as OVS 3.1 leaves it on; unknown names and
// lists with holes are refused.
func TestTLSVersionRange(t *testing.T) {
	for _, c := range []struct {
		protocols string
		min, max  uint16
		err       bool
	}{
		{protocols: "", min: tls.VersionTLS10, max: tls.VersionTLS13},
		{protocols: "TLSv1.2", min: tls.VersionTLS12, max: tls.VersionTLS13},
		{protocols: "tlsv1, TLSv1.1", min: tls.VersionTLS10, max: tls.VersionTLS11},
		{protocols: "TLSv1.3", min: tls.VersionTLS13, max: tls.VersionTLS13},
		{protocols: "TLSv1,TLSv1.2", err: true},
		{protocols: "SSLv3", err: true},
	} {
		minV, maxV, err := tlsVersionRange(c.protocols)
		if (err != nil) != c.err || !c.err && (minV != c.min || maxV != c.max) {
			t.Errorf("%q: %x-%x, %v; want %x-%x, error %v", c.protocols, minV, maxV, err, c.min, c.max, c.err)
		}
	}
}

// TestTLSConfigRefuses: settings crypto/tls cannot honour are refused
// with an error that names the option.
func TestTLSConfigRefuses(t *testing.T) {
	for _, f := range []TLSFiles{{Ciphers: "AES256-SHA"}, {Protocols: "TLSv1,TLSv1.2"}, {}} {
		_, err := f.Config()
		want := map[bool]string{true: "--ssl-", false: "-p, -c, -C"}[f.Ciphers != "" || f.Protocols != ""]
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %v, want an error naming %q", f, err, want)
		}
	}
	if _, err := (TLSFiles{Ciphers: ovsCiphers, Protocols: "TLSv1.2"}).Config(); err == nil || !strings.Contains(err.Error(), "-p, -c, -C") {
		t.Errorf("OVS's default ciphers: %v, want only the missing files refused", err)
	}
}
