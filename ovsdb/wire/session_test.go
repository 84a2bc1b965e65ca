package wire

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ovn-org/libovsdb/model"
)

// TestSessionBackoff: reconnect.c's schedule over three members that do
// not answer: one free try of each, in the session's own order, then 1 s
// doubling to the maximum; a connection lost because its member stopped
// leading makes every member free again.
func TestSessionBackoff(t *testing.T) {
	dir := t.TempDir()
	var remotes []string
	for i := range 3 {
		remotes = append(remotes, "unix:"+filepath.Join(dir, fmt.Sprintf("m%d.sock", i)))
	}
	s := NewSession(strings.Join(remotes, ","), 8*time.Second)
	var tried []string
	var waits []time.Duration
	for range 7 {
		_, err := s.Dial(t.Context(), "OVN_Northbound", model.ClientDBModel{}, Options{})
		if err == nil {
			t.Fatal("dial of a missing socket succeeded")
		}
		tried = append(tried, strings.SplitN(err.Error(), ": ", 2)[0])
		waits = append(waits, s.Backoff())
	}
	if want := []time.Duration{0, 0, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	first := slices.Clone(tried[:3])
	slices.Sort(first)
	if !slices.Equal(first, remotes) || !slices.Equal(tried[3:6], tried[:3]) {
		t.Errorf("members tried %v: want each once, then again in the same order", tried)
	}
	s.Lost(ErrNotLeader)
	if s.Backoff() != 0 || s.Waiting() {
		t.Errorf("after losing the leader: wait %v, want none", s.Backoff())
	}
}
