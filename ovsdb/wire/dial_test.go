package wire

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
	"github.com/northlog/northlog/relations/nb"
)

// TestDialSilence: with Options.Silence, Dial waits as long as the
// initial contents keep arriving, here a real ovsdb-server's 2 MB sent
// through a link slowed to several times Silence in all, and gives up with
// ErrSilent on a server that answers nothing (stopped with SIGSTOP).
func TestDialSilence(t *testing.T) {
	reference.Require(t)
	ctx := t.Context()
	dir := reference.Dir{Path: t.TempDir()}
	if err := dir.CreateDB(ctx, "nb"); err != nil {
		t.Fatal(err)
	}
	server, err := dir.StartServer(ctx, "nb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(server.Stop)
	// 2,000 switches with 1 kB of external_ids each, 100 a transaction (a
	// command-line argument holds at most 128 kB).
	for first := 0; first < 2000; first += 100 {
		var ops []string
		for i := first; i < first+100; i++ {
			ops = append(ops, fmt.Sprintf(`{"op":"insert","table":"Logical_Switch","row":{"name":"sw%d","external_ids":["map",[["pad","%s"]]]}}`,
				i, strings.Repeat("x", 1000)))
		}
		if out, err := dir.Command(ctx, "ovsdb-client", "transact", dir.NBRemote(),
			`["OVN_Northbound",`+strings.Join(ops, ",")+`]`).CombinedOutput(); err != nil {
			t.Fatalf("ovsdb-client transact: %v: %s", err, out)
		}
	}

	m, err := nb.FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	schema := nb.Schema()
	const silence = 500 * time.Millisecond
	opts := Options{Tables: []string{nb.LogicalSwitchTable}, Schema: &schema, Silence: silence}

	slow := slowLink(t, strings.TrimPrefix(dir.NBRemote(), "unix:"), 16<<10, 40*time.Millisecond)
	start := time.Now()
	c, err := Dial(ctx, "tcp:"+slow, m.Name(), m, opts)
	if err != nil {
		t.Fatalf("Dial through a slow link: %v", err)
	}
	took := time.Since(start)
	bs, _ := c.Take()
	c.Close()
	if len(bs) == 0 || len(bs[0].Changes) != 2000 {
		t.Fatalf("initial contents: %d batches, want the 2000 switches", len(bs))
	}
	if took < 4*silence {
		t.Errorf("the slow link took %v, not several times Silence (%v): the test shows nothing", took, silence)
	}

	if err := syscall.Kill(server.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(server.Pid(), syscall.SIGCONT)
	start = time.Now()
	_, err = Dial(ctx, dir.NBRemote(), m.Name(), m, opts)
	if !errors.Is(err, ErrSilent) {
		t.Fatalf("Dial of a stopped server: %v, want ErrSilent", err)
	}
	if took := time.Since(start); took > 4*silence {
		t.Errorf("Dial of a stopped server gave up after %v, Silence is %v", took, silence)
	}
}

// slowLink listens on a local TCP port and relays each connection to the
// unix socket path, the server's side in chunks of at most chunk bytes
// with pause between them; it returns the port's address.
func slowLink(t *testing.T, path string, chunk int, pause time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			client, err := l.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("unix", path)
			if err != nil {
				client.Close()
				continue
			}
			go func() {
				io.Copy(server, client)
				server.Close()
			}()
			go func() {
				defer client.Close()
				buf := make([]byte, chunk)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						if _, err := client.Write(buf[:n]); err != nil {
							return
						}
						time.Sleep(pause)
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}
