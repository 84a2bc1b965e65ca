package ovsdb

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
)

// testPKI makes certificates with openssl in dir: a CA and a wrong CA
// (NAME.pem, NAME.key) and leaves signed by one of them.
type testPKI struct {
	t   *testing.T
	dir string
}

func (p testPKI) path(name string) string { return filepath.Join(p.dir, name) }

func (p testPKI) openssl(args ...string) {
	p.t.Helper()
	cmd := exec.Command("openssl", args...)
	cmd.Dir = p.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		p.t.Fatalf("openssl %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// ca makes a self-signed CA certificate name.pem and its key name.key.
func (p testPKI) ca(name string) {
	p.openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN="+name,
		"-keyout", name+".key", "-out", name+".pem")
}

// leaf makes name.key and name.pem, a certificate signed by ca.
func (p testPKI) leaf(name, ca string) {
	p.openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN="+name, "-keyout", name+".key", "-out", name+".csr")
	p.openssl("x509", "-req", "-in", name+".csr", "-CA", ca+".pem", "-CAkey", ca+".key", "-CAcreateserial",
		"-days", "1", "-out", name+".pem")
}

// listeningPort is the port ovsdb-server's log says it listens on for
// its pssl:0:127.0.0.1 remote (OVS logs it as "0:127.0.0.1").
func listeningPort(t *testing.T, log string) string {
	t.Helper()
	re := regexp.MustCompile(`\|0:127\.0\.0\.1: listening on port (\d+)`)
	for range 100 {
		b, _ := os.ReadFile(log)
		if m := re.FindSubmatch(b); m != nil {
			return string(m[1])
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: no pssl port", log)
	return ""
}

// TestLiveTLS: NB and SB served on pssl: with a test CA; a client that
// trusts another CA is refused, naming the CA; northd on ssl: remotes,
// whose certificate files hold one the servers refuse at first, connects
// once they are renewed, and ovn-nbctl --wait=sb works through it.
func TestLiveTLS(t *testing.T) {
	nbSchema := nb.Schema()
	t.Parallel()
	if _, err := exec.LookPath("openssl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	pki := testPKI{t: t, dir: t.TempDir()}
	pki.ca("ca")
	pki.ca("wrongca")
	pki.leaf("server", "ca")
	pki.leaf("northd", "ca")
	pki.leaf("stale", "wrongca")
	s := startServers(t, "--remote=pssl:0:127.0.0.1", "--private-key="+pki.path("server.key"),
		"--certificate="+pki.path("server.pem"), "--ca-cert="+pki.path("ca.pem"), "--peer-ca-cert="+pki.path("ca.pem"))
	nbSSL := "ssl:127.0.0.1:" + listeningPort(t, filepath.Join(s.Path, "nb.log"))
	sbSSL := "ssl:127.0.0.1:" + listeningPort(t, filepath.Join(s.Path, "sb.log"))

	m, err := nb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	wrong := wire.TLSFiles{PrivateKey: pki.path("northd.key"), Certificate: pki.path("northd.pem"), CACert: pki.path("wrongca.pem")}
	_, err = wire.Dial(t.Context(), nbSSL, m.Name(), m, wire.Options{Tables: []string{nb.NBGlobalTable}, Schema: &nbSchema, TLS: wrong})
	if err == nil || !strings.Contains(err.Error(), "not trusted by "+pki.path("wrongca.pem")) {
		t.Fatalf("dial trusting the wrong CA: %v, want a refusal naming it", err)
	}

	// --bootstrap-ca-cert: the first connection saves the CA certificate
	// the server sends and ends; the next one trusts it.
	boot := wire.TLSFiles{PrivateKey: pki.path("northd.key"), Certificate: pki.path("northd.pem"),
		CACert: pki.path("bootstrapped.pem"), BootstrapCACert: true}
	_, err = wire.Dial(t.Context(), nbSSL, m.Name(), m, wire.Options{Tables: []string{nb.NBGlobalTable}, Schema: &nbSchema, TLS: boot})
	if err == nil || !strings.Contains(err.Error(), "bootstrapped CA cert") {
		t.Fatalf("first dial with --bootstrap-ca-cert: %v, want the CA certificate saved", err)
	}
	if got, want := readFile(t, pki.path("bootstrapped.pem")), readFile(t, pki.path("ca.pem")); got != want {
		t.Fatalf("bootstrapped CA certificate:\n%s\nwant\n%s", got, want)
	}
	c, err := wire.Dial(t.Context(), nbSSL, m.Name(), m, wire.Options{Tables: []string{nb.NBGlobalTable}, Schema: &nbSchema, TLS: boot})
	if err != nil {
		t.Fatalf("dial with the bootstrapped CA certificate: %v", err)
	}
	c.Close()

	// The northd's files hold the stale certificate until renewed.
	key, cert := pki.path("client.key"), pki.path("client.pem")
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(pki.path("stale.key"), key)
	copyFile(pki.path("stale.pem"), cert)
	l := runNorthd(t, s, func(c *Config) {
		c.NBRemote, c.SBRemote = nbSSL, sbSSL
		c.TLS = TLSOptions{PrivateKey: key, Certificate: cert, CACert: pki.path("ca.pem")}
	})
	time.Sleep(time.Second)
	if l.Active() {
		t.Fatal("active with a certificate the servers do not trust")
	}
	copyFile(pki.path("northd.key"), key)
	copyFile(pki.path("northd.pem"), cert)
	s.run("ovn-nbctl", "--timeout=30", "--wait=sb", "ls-add", "sw0")
	if got := s.run("ovn-sbctl", "--bare", "--columns=external_ids", "list", "Datapath_Binding"); !strings.Contains(got, "name=sw0") {
		t.Fatalf("SB Datapath_Binding after --wait=sb: %q", got)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
