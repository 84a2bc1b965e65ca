package ovsdb

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/northlog/northlog/internal/reference"
)

// clusterServers is a directory for Raft clusters (startCluster) and
// northds, without standalone servers; everything stops when the test
// ends.
func clusterServers(t *testing.T) *servers {
	t.Helper()
	reference.Require(t)
	dir, err := os.MkdirTemp("", "northlog-raft")
	if err != nil {
		t.Fatal(err)
	}
	s := &servers{t: t, Dir: reference.Dir{Path: dir}, procs: map[string]*reference.Daemon{}}
	t.Cleanup(func() {
		for name := range s.procs {
			s.kill(name)
		}
		os.RemoveAll(dir)
	})
	return s
}

// followBound bounds the time a change takes to reach the SB after a
// leader goes: the election and the northd finding the new leader. It
// only catches a northd that never follows (one left on a follower writes
// nothing): the time the tests log is the figure to watch (about 1 s on a
// quiet machine), but a loaded one has taken 7 s to elect a leader.
const followBound = 30 * time.Second

// changeReachesSB adds switch sw through a live NB member and waits until
// a live SB member has its Datapath_Binding, failing t once followBound
// has passed since start; it returns the time since start.
func changeReachesSB(t *testing.T, s *servers, nbc, sbc *raftCluster, sw string, start time.Time) time.Duration {
	t.Helper()
	// Made as soon as the NB takes it: without its leader, not at once.
	for {
		_, err := s.try("ovn-nbctl", "--db="+nbc.alive(), "--timeout=1", "ls-add", sw)
		if err == nil {
			break
		}
		if time.Since(start) > followBound {
			t.Fatalf("the NB takes no change after %v: %v", followBound, err)
		}
	}
	for {
		// Any member will do, leader or not, once it has the change.
		out, _ := s.try("ovn-sbctl", "--db="+sbc.alive(), "--no-leader-only", "--timeout=1", "--bare", "--columns=external_ids", "list", "Datapath_Binding")
		if strings.Contains(out, "name="+sw) {
			return time.Since(start)
		}
		if time.Since(start) > followBound {
			t.Fatalf("%s not in the SB after %v", sw, followBound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// clusterBackoff is the northds' maximum reconnect backoff in the cluster
// tests. The time a change takes to reach the SB after a leader is killed
// is the election (ovsdb-server's timer: 1 to 2 s) plus the tries at
// members that are not the leader yet: the tests measure the following of
// the new leader, not the backoff, whose 1 s minimum (ovn-northd's, with
// the default maximum) would add a second.
const clusterBackoff = 100 * time.Millisecond

// raftCluster is a 3-member Raft cluster of one database served in a test.
type raftCluster struct {
	s       *servers
	db      string
	members [4]*reference.Daemon // 1-based; nil once killed
}

// startCluster creates and serves db ("nb" or "sb") as a 3-member
// cluster in s's directory.
func startCluster(t *testing.T, s *servers, db string) *raftCluster {
	t.Helper()
	if err := s.CreateCluster(t.Context(), db, 3); err != nil {
		t.Fatal(err)
	}
	c := &raftCluster{s: s, db: db}
	for i := 1; i <= 3; i++ {
		d, err := s.StartMember(t.Context(), db, i)
		if err != nil {
			t.Fatal(err)
		}
		c.members[i] = d
		s.procs[fmt.Sprintf("%s%d", db, i)] = d
	}
	return c
}

// remotes lists the members in the order given.
func (c *raftCluster) remotes(order ...int) string {
	var rs []string
	for _, i := range order {
		rs = append(rs, c.s.MemberRemote(c.db, i))
	}
	return strings.Join(rs, ",")
}

// alive lists the remotes of the members not killed.
func (c *raftCluster) alive() string {
	var order []int
	for i := 1; i <= 3; i++ {
		if c.members[i] != nil {
			order = append(order, i)
		}
	}
	return c.remotes(order...)
}

// leader is the member that _Server says leads, waiting for an election.
func (c *raftCluster) leader(t *testing.T) int {
	t.Helper()
	name := map[string]string{"nb": "OVN_Northbound", "sb": "OVN_Southbound"}[c.db]
	query := fmt.Sprintf(`["_Server",{"op":"select","table":"Database","where":[["name","==","%s"]],"columns":["leader"]}]`, name)
	for range 100 {
		for i := 1; i <= 3; i++ {
			if c.members[i] == nil {
				continue
			}
			out, err := c.s.try("ovsdb-client", "query", c.s.MemberRemote(c.db, i), query)
			if err == nil && strings.Contains(out, `"leader":true`) {
				return i
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s cluster: no leader", c.db)
	return 0
}

// kill kills member i at once (SIGKILL).
func (c *raftCluster) kill(i int) {
	c.s.kill(fmt.Sprintf("%s%d", c.db, i))
	c.members[i] = nil
}

// waitOneActive waits until exactly one of the northds owns the SB lock
// and fails the test if that does not happen within d.
func waitOneActive(t *testing.T, d time.Duration, ns ...*liveNorthd) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		n := 0
		for _, l := range ns {
			if l.Active() {
				n++
			}
		}
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d northds active, want 1", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLiveCluster: NB and SB as 3-member Raft clusters, two northds given
// the members in different orders. Exactly one writes; when the SB leader
// and then the NB leader are killed, a change made right after the kill
// reaches the SB (changeReachesSB logs how soon), and one northd is active
// still. At the end the SB's flows are those ovn-northd writes for the same
// NB changes.
func TestLiveCluster(t *testing.T) {
	t.Parallel()
	s := clusterServers(t)
	nbc, sbc := startCluster(t, s, "nb"), startCluster(t, s, "sb")
	nbctl := func(args ...string) {
		t.Helper()
		s.run("ovn-nbctl", append([]string{"--db=" + nbc.alive(), "--timeout=20"}, args...)...)
	}
	nbctl("init")
	var ns []*liveNorthd
	for _, order := range [][]int{{1, 2, 3}, {3, 2, 1}} {
		ns = append(ns, runNorthd(t, s, func(c *Config) {
			c.NBRemote, c.SBRemote = nbc.remotes(order...), sbc.remotes(order...)
			c.Probe = time.Second
			c.MaxBackoff = clusterBackoff
		}))
	}
	waitOneActive(t, 10*time.Second, ns...)
	s.script("export OVN_NB_DB=" + nbc.alive() + "\n" + lockTopology)
	nbctl("--wait=sb", "sync")
	// A moment for a second instance to claim the lock too, were it able.
	time.Sleep(500 * time.Millisecond)
	waitOneActive(t, 0, ns...)

	for _, killed := range []*raftCluster{sbc, nbc} {
		killed.kill(killed.leader(t))
		took := changeReachesSB(t, s, nbc, sbc, "sw-after-"+killed.db, time.Now())
		t.Logf("%s leader killed: the change is in the SB after %v", killed.db, took.Round(time.Millisecond))
		waitOneActive(t, 5*time.Second, ns...)
		// Connections names the member each connection is on: the leaders.
		for _, l := range ns {
			if st := l.Connections(); st.Active && (st.SB.Member != sbc.s.MemberRemote("sb", sbc.leader(t)) ||
				st.NB.Member != nbc.s.MemberRemote("nb", nbc.leader(t))) {
				t.Errorf("active northd on NB %s and SB %s, not the leaders", st.NB.Member, st.SB.Member)
			}
		}
	}

	want, err := reference.Start(t).Run(t.Context(), lockTopology+"\novn-nbctl ls-add sw-after-sb\novn-nbctl ls-add sw-after-nb")
	if err != nil {
		t.Fatal(err)
	}
	nbctl("--timeout=30", "--wait=sb", "sync")
	if r := reference.Compare(want, dumpFlows(t, sbc.alive())); !r.Equal() {
		t.Errorf("flows after the failovers differ from ovn-northd's:\n%s", r)
	}
}

// index is the Raft log index that member i reports in _Server.
func (c *raftCluster) index(t *testing.T, i int) int {
	t.Helper()
	name := map[string]string{"nb": "OVN_Northbound", "sb": "OVN_Southbound"}[c.db]
	query := fmt.Sprintf(`["_Server",{"op":"select","table":"Database","where":[["name","==","%s"]],"columns":["index"]}]`, name)
	out := c.s.run("ovsdb-client", "query", c.s.MemberRemote(c.db, i), query)
	var n int
	if _, err := fmt.Sscanf(out[strings.Index(out, `"index":`):], `"index":%d`, &n); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return n
}

// destroy kills every member and removes their files and sockets.
func (c *raftCluster) destroy() {
	for i := 1; i <= 3; i++ {
		c.kill(i)
		for _, f := range []string{c.s.MemberFile(c.db, i), strings.TrimPrefix(c.s.MemberRemote(c.db, i), "unix:"),
			strings.TrimSuffix(c.s.MemberFile(c.db, i), ".db") + ".raft"} {
			os.Remove(f)
		}
	}
}

// TestLiveClusterStale: as ovn-northd's IDL, the northd remembers the NB
// cluster's index and refuses members whose data is older, here an NB
// cluster destroyed and made again from scratch on the same sockets;
// ovn-northd's nb-cluster-state-reset (ResetClusterState) makes it accept
// them, and the SB then follows the new NB.
func TestLiveClusterStale(t *testing.T) {
	t.Parallel()
	s := startServers(t)
	nbc := startCluster(t, s, "nb")
	nbctl := func(args ...string) {
		t.Helper()
		s.run("ovn-nbctl", append([]string{"--db=" + nbc.alive(), "--timeout=20"}, args...)...)
	}
	nbctl("init")
	for i := range 10 {
		nbctl("ls-add", fmt.Sprintf("old%d", i))
	}
	l := runNorthd(t, s, func(c *Config) { c.NBRemote = nbc.remotes(1, 2, 3) })
	nbctl("--wait=sb", "sync")
	seen := nbc.index(t, nbc.leader(t))

	nbc.destroy()
	nbc = startCluster(t, s, "nb")
	nbctl("init")
	nbctl("ls-add", "fresh")
	if now := nbc.index(t, nbc.leader(t)); now >= seen {
		t.Fatalf("the new cluster's index %d is not below the old one's %d", now, seen)
	}
	inSB := func(name string) bool {
		out := s.run("ovn-sbctl", "--bare", "--columns=external_ids", "list", "Datapath_Binding")
		return strings.Contains(out, "name="+name)
	}
	waitFor(t, "every member is refused for its stale data", func() bool {
		st := l.Connections().NB
		return st.Member == "" && strings.Contains(st.LastError, "stale data")
	})
	time.Sleep(time.Second)
	if st := l.Connections().NB; st.Member != "" || inSB("fresh") {
		t.Fatalf("northd took the stale NB on %s", st.Member)
	}

	l.ResetClusterState(true)
	waitFor(t, "the new NB's switch is in the SB", func() bool { return inSB("fresh") && !inSB("old0") })
}

// ctl is the control socket of the daemon name started in s's directory.
func (s *servers) ctl(name string) string { return filepath.Join(s.Path, name+".ctl") }

// waitLong polls cond for up to 20 s (the real ovn-northd's reconnect
// backoff reaches 8 s), and quotes its log if cond stays false.
func waitLong(t *testing.T, s *servers, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(s.Path, "northd.log"))
			t.Fatalf("timed out waiting until %s; ovn-northd's log:\n%s", what, b)
		}
	}
}

// TestLiveClusterRealNorthd: northlog and the real ovn-northd on the same
// 3-member NB and SB clusters. Exactly one is active at any time. The NB
// leader leaving its cluster (a leader change seen in _Server, mid-session)
// and then the SB leader killed, a change made right after reaches the SB
// (changeReachesSB). At the end the flows the real ovn-northd writes and those
// northlog writes when it takes over from it are the same.
func TestLiveClusterRealNorthd(t *testing.T) {
	t.Parallel()
	s := clusterServers(t)
	nbc, sbc := startCluster(t, s, "nb"), startCluster(t, s, "sb")
	nbctl := func(args ...string) (string, error) {
		return s.try("ovn-nbctl", append([]string{"--db=" + nbc.alive(), "--timeout=5"}, args...)...)
	}
	if _, err := nbctl("init"); err != nil {
		t.Fatal(err)
	}
	real, err := s.StartDaemon("ovn-northd", "northd", "--ovnnb-db="+nbc.remotes(1, 2, 3), "--ovnsb-db="+sbc.remotes(1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	s.procs["northd"] = real
	l := runNorthd(t, s, func(c *Config) {
		c.NBRemote, c.SBRemote = nbc.remotes(3, 2, 1), sbc.remotes(3, 2, 1)
		c.Probe = time.Second
		c.MaxBackoff = clusterBackoff
	})
	realStatus := func() string {
		out, _ := s.try("ovn-appctl", "-t", s.ctl("northd"), "status")
		return strings.TrimSpace(out)
	}
	oneActive := func() bool {
		return l.Active() != (realStatus() == "Status: active")
	}
	waitFor(t, "one northd is active", oneActive)
	s.script("export OVN_NB_DB=" + nbc.alive() + "\n" + lockTopology)
	if _, err := nbctl("--wait=sb", "sync"); err != nil {
		t.Fatal(err)
	}
	if !oneActive() {
		t.Fatalf("northlog active %v, ovn-northd %s", l.Active(), realStatus())
	}

	// inSB adds a switch and waits until it is in the SB.
	inSB := func(what, sw string, start time.Time) {
		t.Helper()
		took := changeReachesSB(t, s, nbc, sbc, sw, start)
		t.Logf("%s: the change is in the SB after %v (northlog active: %v)", what, took.Round(time.Millisecond), l.Active())
		waitFor(t, "one northd is active", oneActive)
	}

	leader := nbc.leader(t)
	start := time.Now()
	s.run("ovs-appctl", "-t", s.ctl(fmt.Sprintf("nb%d", leader)), "cluster/leave", "OVN_Northbound")
	nbc.members[leader] = nil // still running, out of the cluster
	inSB("NB leader left", "sw-after-leave", start)

	start = time.Now()
	sbc.kill(sbc.leader(t))
	inSB("SB leader killed", "sw-after-kill", start)

	sync := func() {
		t.Helper()
		if _, err := nbctl("--timeout=30", "--wait=sb", "sync"); err != nil {
			t.Fatal(err)
		}
	}
	if l.Active() {
		if err := l.Pause(t.Context()); err != nil {
			t.Fatal(err)
		}
		waitLong(t, s, "ovn-northd is active", func() bool { return realStatus() == "Status: active" })
	}
	sync()
	want := dumpFlows(t, sbc.alive())
	s.run("ovn-appctl", "-t", s.ctl("northd"), "pause")
	// 23.03's pause takes effect, releasing the lock, when something next
	// wakes its main loop: an NB change.
	if _, err := nbctl("set", "NB_Global", ".", "external_ids:pause=1"); err != nil {
		t.Fatal(err)
	}
	if err := l.Resume(t.Context()); err != nil {
		t.Fatal(err)
	}
	waitLong(t, s, "northlog is active", l.Active)
	sync()
	if r := reference.Compare(want, dumpFlows(t, sbc.alive())); !r.Equal() {
		t.Errorf("northlog's flows differ from ovn-northd's:\n%s", r)
	}
}
