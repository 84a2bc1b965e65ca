package vlog

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestSpecs: vlog specs set the levels vlog/list shows, and a bad one
// says which part is bad.
func TestSpecs(t *testing.T) {
	v := New("p", nil, "a", "b")
	for _, spec := range []string{"console:off", "b:file:dbg", "syslog:ERR", "ANY:any:warn", "a:emer"} {
		if err := v.Set(spec); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	want := "                 console    syslog    file\n" +
		"                 -------    ------    ------\n" +
		"a                 EMER       EMER       EMER\n" +
		"b                 WARN       WARN       WARN\n"
	if got := v.List(); got != want {
		t.Errorf("list:\n%s\nwant:\n%s", got, want)
	}
	for spec, msg := range map[string]string{
		"c:info":           `no destination, level, or module "c"`,
		"console:file":     "cannot specify multiple destinations",
		"info:dbg":         "cannot specify multiple levels",
		"a:b":              "cannot specify multiple modules",
		"PATTERN:file:%m":  "not supported",
		"console:info:bad": `no destination, level, or module "bad"`,
	} {
		if err := v.Set(spec); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", spec, err, msg)
		}
	}
}

// TestFileFormat: a file line is OVS's (time to the millisecond, sequence
// number, module, level, message with the record's attributes), levels
// filter per destination, and Reopen starts a new file after a rename.
func TestFileFormat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "d.log")
	var console strings.Builder
	v := New("p", &console, "northd")
	if err := v.SetLogFile(file); err != nil {
		t.Fatal(err)
	}
	v.Set("console:warn")
	log := slog.New(v.Handler("northd")).With("db", "NB")
	log.Info("connected", "remote", "unix:/x y")
	log.Debug("not shown")
	log.Warn("lost")
	b, _ := os.ReadFile(file)
	line := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|00001\|northd\|INFO\|connected db=NB remote="unix:/x y"\n` +
		`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\|00002\|northd\|WARN\|lost db=NB\n$`)
	if !line.Match(b) {
		t.Errorf("file:\n%s", b)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\|00002\|northd\|WARN\|lost db=NB\n$`).MatchString(console.String()) {
		t.Errorf("console:\n%s", console.String())
	}
	if err := os.Rename(file, file+".1"); err != nil {
		t.Fatal(err)
	}
	if err := v.Reopen(); err != nil {
		t.Fatal(err)
	}
	log.Info("again")
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "|INFO|again db=NB\n") {
		t.Errorf("reopened file:\n%s", b)
	}
	if err := New("p", nil).Reopen(); err == nil || err.Error() != "Logging to file not configured" {
		t.Errorf("reopen with no file: %v", err)
	}
}

// TestRateLimit: one message repeated is logged rateBurst times, then
// dropped until a token comes back, when the drop count is logged; with
// rate limiting disabled every one is logged.
func TestRateLimit(t *testing.T) {
	var out strings.Builder
	v := New("p", &out, "m")
	now := time.Unix(1000, 0)
	v.now = func() time.Time { return now }
	log := slog.New(v.Handler("m"))
	for range rateBurst + 5 {
		log.Warn("same")
	}
	if n := strings.Count(out.String(), "|WARN|same"); n != rateBurst {
		t.Errorf("%d lines in a burst, want %d", n, rateBurst)
	}
	now = now.Add(rateInterval)
	log.Warn("same")
	if !strings.Contains(out.String(), "Dropped 5 log messages in last 6 seconds (most recently, 6 seconds ago)") {
		t.Errorf("no drop count:\n%s", out.String())
	}
	out.Reset()
	if err := v.SetRateLimit(false, "m"); err != nil {
		t.Fatal(err)
	}
	for range rateBurst + 5 {
		log.Warn("same")
	}
	if n := strings.Count(out.String(), "|WARN|same"); n != rateBurst+5 {
		t.Errorf("%d lines with rate limiting disabled, want %d", n, rateBurst+5)
	}
	if err := v.SetRateLimit(true, "zz"); err == nil {
		t.Error("unknown module accepted")
	}
}

// TestSyslogMethods: --syslog-method's udp: and unix: sinks get OVS's
// syslog line with its priority (LOG_DAEMON), the target gets the message
// in RFC 5424's format (LOG_LOCAL0), lines below the syslog level go
// nowhere, and an unknown method is refused as OVS refuses it.
func TestSyslogMethods(t *testing.T) {
	udp := func() *net.UDPConn {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	unixSock := filepath.Join(t.TempDir(), "log.sock")
	unix, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: unixSock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close()
	read := func(c net.PacketConn) string {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 2048)
		n, _, err := c.ReadFrom(b)
		if err != nil {
			t.Fatal(err)
		}
		return string(b[:n])
	}
	host, _ := os.Hostname()
	udpSink := udp()
	for _, c := range []struct {
		method string
		sink   net.PacketConn
	}{{"udp:" + udpSink.LocalAddr().String(), udpSink}, {"unix:" + unixSock, unix}} {
		target := udp()
		v := New("ovn-northd", nil, "northd")
		if err := v.Set("syslog:warn"); err != nil {
			t.Fatal(err)
		}
		if err := v.SetSyslog(c.method, target.LocalAddr().String()); err != nil {
			t.Fatal(err)
		}
		log := slog.New(v.Handler("northd"))
		log.Info("not for syslog")
		log.Warn("duplicate logical port", "port", "p1")
		if got, want := read(c.sink), "<28>ovs|00002|northd|WARN|duplicate logical port port=p1"; got != want {
			t.Errorf("%s: %q, want %q", c.method, got, want)
		}
		rfc5424 := regexp.MustCompile(`^<132>1 \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z ` + regexp.QuoteMeta(fmt.Sprintf("%s ovn-northd %d northd - \ufeffduplicate logical port port=p1", host, os.Getpid())) + `$`)
		if got := read(target); !rfc5424.MatchString(got) {
			t.Errorf("target: %q, want RFC 5424's line", got)
		}
	}
	if err := New("p", nil).SetSyslog("tcp:1.2.3.4", ""); err == nil || err.Error() != "unsupported syslog method 'tcp:1.2.3.4'" {
		t.Errorf("unknown method: %v", err)
	}
}
