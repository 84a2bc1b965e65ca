package wire

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ovn-org/libovsdb/model"
)

// Session is what a client keeps of one database across its connections,
// as OVS's jsonrpc session and IDL keep it for ovn-northd: the members of
// the remote list in an order of its own, which one to try next, the
// reconnect backoff, and the cluster index seen (ClusterIndex).
//
// Each Dial tries one member. As OVS's reconnect.c: the first try of each
// member is free of backoff; then a failed try or a lost connection waits
// 1 s, doubling up to the maximum; a connection that lasted at least the
// current wait brings it back to 1 s; a connection that ended because its
// member stopped being the usable leader (ErrNotLeader, ErrStale) makes
// every member free to try at once again.
type Session struct {
	remotes []string
	next    int
	// Index is the cluster index seen, shared by the session's
	// connections (Options.Index).
	Index ClusterIndex

	maxBackoff  time.Duration
	freeTries   int
	backoff     time.Duration
	due         time.Time
	connectedAt time.Time // of the connection in use, zero when none
}

// minBackoff is OVS's RECONNECT_DEFAULT_MIN_BACKOFF.
const minBackoff = time.Second

// NewSession makes the session of remote (a comma-separated list, see
// Dial), in random order as ovsdb-cs shuffles it so that clients spread
// over the members; maxBackoff bounds the wait between tries.
func NewSession(remote string, maxBackoff time.Duration) *Session {
	var rs []string
	for r := range strings.SplitSeq(remote, ",") {
		rs = append(rs, strings.TrimSpace(r))
	}
	rand.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
	return &Session{remotes: rs, maxBackoff: maxBackoff, freeTries: len(rs)}
}

// Due is when the next try may be made.
func (s *Session) Due() time.Time { return s.due }

// Waiting reports whether the next try is not due yet.
func (s *Session) Waiting() bool { return time.Now().Before(s.due) }

// Dial tries the next member (see Dial for what a connection does); the
// session's Index is checked and kept up to date by the connection.
func (s *Session) Dial(ctx context.Context, dbName string, client model.ClientDBModel, opts Options) (*Conn, error) {
	opts.Index = &s.Index
	c, err := dialOne(ctx, s.remotes[s.next%len(s.remotes)], dbName, client, opts)
	if err != nil {
		s.ended()
		return nil, err
	}
	s.connectedAt = time.Now()
	return c, nil
}

// Lost records that the connection Dial made has ended, for err.
func (s *Session) Lost(err error) {
	if errors.Is(err, ErrNotLeader) || errors.Is(err, ErrStale) {
		// As ovsdb-cs after a monitored member stops being usable: the
		// new leader is wanted at once. The extra try is the one this
		// disconnection takes.
		s.freeTries = len(s.remotes) + 1
	}
	s.ended()
	s.connectedAt = time.Time{}
}

// ended moves to the next member and sets the wait before trying it, as
// reconnect.c's reconnect_disconnected.
func (s *Session) ended() {
	s.next++
	lowest := min(minBackoff, s.maxBackoff)
	switch {
	case s.freeTries > 1:
		s.freeTries--
		s.backoff = 0
	case !s.connectedAt.IsZero() && time.Since(s.connectedAt) >= s.backoff:
		s.backoff = lowest
	case s.backoff < lowest:
		s.backoff = lowest
	default:
		s.backoff = min(2*s.backoff, s.maxBackoff)
	}
	s.due = time.Now().Add(s.backoff)
}

// Backoff is the wait set after the last failure or lost connection.
func (s *Session) Backoff() time.Duration { return s.backoff }

// ClusterIndex is the highest Raft log index seen of a clustered database,
// as ovsdb-cs's min_index: a member whose index is lower has older data
// than the client has already read (restored from an old copy, or cut off
// from the cluster) and is refused. It is safe for concurrent use.
type ClusterIndex struct{ min atomic.Uint64 }

// accept records index and reports whether it is no older than the
// highest seen.
func (x *ClusterIndex) accept(index uint64) bool {
	for {
		old := x.min.Load()
		if index < old {
			return false
		}
		if x.min.CompareAndSwap(old, index) {
			return true
		}
	}
}

// Reset forgets the index seen (ovn-northd's *-cluster-state-reset), for
// a cluster that was destroyed and made again from scratch, whose members
// would all be refused otherwise.
func (x *ClusterIndex) Reset() { x.min.Store(0) }

// ErrStale is the cause of a member refused because its data is older than
// what the client has already seen (ClusterIndex).
var ErrStale = errors.New("clustered database server has stale data")
