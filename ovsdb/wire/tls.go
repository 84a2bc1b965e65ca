package wire

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// TLSFiles name what "ssl:" remotes use, as OVS's stream-ssl options do:
// PEM files read at each connection, so that a renewed certificate is
// picked up at the next one.
type TLSFiles struct {
	PrivateKey, Certificate, CACert string
	// Protocols is OVS's --ssl-protocols ("" for its default), Ciphers its
	// --ssl-ciphers.
	Protocols, Ciphers string
	// BootstrapCACert is OVS's --bootstrap-ca-cert: while CACert does not
	// exist, the CA certificate the peer presents (the last of its chain,
	// self-signed) is saved there and the connection dropped; the next
	// one trusts it.
	BootstrapCACert bool
}

// ovsCiphers is OVS's default --ssl-ciphers: Go's crypto/tls, which
// offers only strong suites, means the same.
const ovsCiphers = "HIGH:!aNULL:!MD5"

var tlsVersions = map[string]uint16{
	"tlsv1": tls.VersionTLS10, "tlsv1.1": tls.VersionTLS11,
	"tlsv1.2": tls.VersionTLS12, "tlsv1.3": tls.VersionTLS13,
}

// Config reads the files and makes the client configuration. The peer's
// certificate must chain to CACert; as in OVS, its names are not checked
// against the remote's address.
func (f TLSFiles) Config() (*tls.Config, error) {
	minV, maxV, err := tlsVersionRange(f.Protocols)
	if err != nil {
		return nil, err
	}
	if c := strings.TrimSpace(f.Ciphers); c != "" && c != ovsCiphers {
		return nil, fmt.Errorf("--ssl-ciphers %q: Go's crypto/tls picks its own strong cipher suites; only OVS's default %q is supported", c, ovsCiphers)
	}
	if f.PrivateKey == "" || f.Certificate == "" || f.CACert == "" {
		return nil, errors.New("ssl: remotes need a private key, a certificate and a CA certificate (-p, -c, -C)")
	}
	cert, err := tls.LoadX509KeyPair(f.Certificate, f.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("ssl: %w", err)
	}
	caPEM, err := os.ReadFile(f.CACert)
	if errors.Is(err, os.ErrNotExist) && f.BootstrapCACert {
		return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: minV, MaxVersion: maxV,
			InsecureSkipVerify: true, VerifyConnection: f.bootstrap}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ssl: CA certificate: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("ssl: %s: no PEM certificate", f.CACert)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   minV,
		MaxVersion:   maxV,
		// The chain is verified below, without the host name check OVS
		// does not do either.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("ssl: peer presented no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			if err != nil {
				return fmt.Errorf("ssl: peer certificate not trusted by %s: %w", f.CACert, err)
			}
			return nil
		},
	}, nil
}

// tlsVersionRange maps OVS's --ssl-protocols (a comma-separated list of
// TLSv1, TLSv1.1, TLSv1.2; OVS's default is all three) to the range Go
// takes. TLSv1.3, which OVS 3.1 cannot turn off, goes with TLSv1.2. Go
// cannot leave a hole in the range.
func tlsVersionRange(protocols string) (uint16, uint16, error) {
	if strings.TrimSpace(protocols) == "" {
		protocols = "TLSv1,TLSv1.1,TLSv1.2"
	}
	given := map[uint16]bool{}
	for w := range strings.SplitSeq(protocols, ",") {
		v, ok := tlsVersions[strings.ToLower(strings.TrimSpace(w))]
		if !ok {
			return 0, 0, fmt.Errorf("--ssl-protocols %q: unknown protocol %q (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3)", protocols, w)
		}
		given[v] = true
	}
	if given[tls.VersionTLS12] {
		given[tls.VersionTLS13] = true
	}
	minV, maxV := slices.Min(slices.Collect(maps.Keys(given))), slices.Max(slices.Collect(maps.Keys(given)))
	for v := minV; v <= maxV; v++ {
		if !given[v] {
			return 0, 0, fmt.Errorf("--ssl-protocols %q: Go's crypto/tls takes a range of versions, without gaps", protocols)
		}
	}
	return minV, maxV, nil
}

// bootstrap saves the peer's CA certificate to CACert, as OVS's
// do_ca_cert_bootstrap, and fails the handshake so that the next
// connection verifies the peer with it.
func (f TLSFiles) bootstrap(cs tls.ConnectionState) error {
	chain := cs.PeerCertificates
	if len(chain) == 0 {
		return errors.New("ssl: could not bootstrap CA cert: no certificate presented by peer")
	}
	ca := chain[len(chain)-1]
	if err := ca.CheckSignatureFrom(ca); err != nil {
		return fmt.Errorf("ssl: could not bootstrap CA cert: obtained certificate is not self-signed (%w); "+
			"is the peer configured to send its CA certificate (ovsdb-server --peer-ca-cert)?", err)
	}
	out, err := os.OpenFile(f.CACert, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
	if err != nil {
		return fmt.Errorf("ssl: could not bootstrap CA cert: %w", err)
	}
	err = pem.Encode(out, &pem.Block{Type: "CERTIFICATE", Bytes: ca.Raw})
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.CACert)
		return fmt.Errorf("ssl: could not bootstrap CA cert: %w", err)
	}
	return fmt.Errorf("ssl: bootstrapped CA cert %q to %s; retrying with it", ca.Subject, f.CACert)
}
