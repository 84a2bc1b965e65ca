package wire

import "time"

// Backoff spaces out the retries of something that keeps failing (a
// connection, a transaction): each failure doubles the wait, from 100 ms
// up to a limit; a success resets it.
type Backoff struct {
	next  time.Time
	delay time.Duration
}

// Failed records a failure: the next try waits twice as long as the last
// one, at most limit.
func (b *Backoff) Failed(limit time.Duration) {
	b.delay = min(limit, max(100*time.Millisecond, 2*b.delay))
	b.next = time.Now().Add(b.delay)
}

// Reset records a success.
func (b *Backoff) Reset() { b.delay = 0 }

// Delay is the wait after the last failure, 0 after a success.
func (b *Backoff) Delay() time.Duration { return b.delay }

// Next is when the next try is due.
func (b *Backoff) Next() time.Time { return b.next }

// Waiting reports whether the next try is not due yet.
func (b *Backoff) Waiting() bool { return b.delay > 0 && time.Now().Before(b.next) }
