package ovsdb

import (
	"runtime"
	"testing"
)

// TestSerialChanges: a northd with Config.SerialChanges runs the process
// on one processor once its cold start is written, gives the processors
// back while Threads asks for more than one, and when Run returns. Not
// parallel: it reads the process's GOMAXPROCS.
func TestSerialChanges(t *testing.T) {
	was := runtime.GOMAXPROCS(0)
	if was < 2 {
		t.Skip("GOMAXPROCS is already 1")
	}
	s := startServers(t)
	s.script("ovn-nbctl ls-add sw0 -- lsp-add sw0 p1")
	l := runNorthd(t, s, func(c *Config) { c.SerialChanges = true })
	s.sync()
	waitFor(t, "one processor after the cold start", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	l.SetThreads(2)
	s.sync()
	waitFor(t, "every processor with 2 threads", func() bool { return runtime.GOMAXPROCS(0) == was })
	l.SetThreads(1)
	s.script("ovn-nbctl --wait=sb lsp-add sw0 p2")
	waitFor(t, "one processor again with 1 thread", func() bool { return runtime.GOMAXPROCS(0) == 1 })
	l.stop()
	if n := runtime.GOMAXPROCS(0); n != was {
		t.Errorf("GOMAXPROCS %d after Run returned, want %d", n, was)
	}
}
