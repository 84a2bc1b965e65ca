package embedded

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// lockWaiter is a session's claim on a lock (RFC 7047, 4.1.8-4.1.10). The
// first waiter of a lock owns it.
type lockWaiter struct {
	sess  *session
	steal bool
}

// lockRequest answers "lock", "steal" and "unlock" the way ovsdb-server
// does: "lock" queues the session behind the owner; "steal" takes the lock
// at once and sends the owner a "stolen" notification (an owner that had
// itself stolen the lock loses its claim, one that had waited for it queues
// again); "unlock" drops the claim and sends the next waiter "locked". A
// session's claims are dropped when it disconnects.
func (s *server) lockRequest(sess *session, method string, params []json.RawMessage) (any, error) {
	var name string
	if len(params) != 1 || json.Unmarshal(params[0], &name) != nil || name == "" {
		return nil, fmt.Errorf("%s request params must be <id>", method)
	}
	if method == "unlock" {
		if _, ok := sess.waiters[name]; !ok {
			return nil, errors.New(`"unlock" without "lock" or "steal"`)
		}
		s.unlock(sess, name)
		return struct{}{}, nil
	}
	if _, ok := sess.waiters[name]; ok {
		return nil, fmt.Errorf("must issue \"unlock\" before new %q", method)
	}
	w := &lockWaiter{sess: sess, steal: method == "steal"}
	sess.waiters[name] = w
	queue := s.locks[name]
	if w.steal && len(queue) > 0 {
		victim := queue[0]
		if victim.steal {
			queue = queue[1:]
		}
		victim.sess.notify("stolen", name)
		queue = append([]*lockWaiter{w}, queue...)
	} else {
		queue = append(queue, w)
	}
	s.locks[name] = queue
	return map[string]bool{"locked": queue[0] == w}, nil
}

// unlock drops sess's claim on the named lock and tells the next waiter when
// it becomes the owner. The caller holds s.mu.
func (s *server) unlock(sess *session, name string) {
	w := sess.waiters[name]
	delete(sess.waiters, name)
	queue := s.locks[name]
	i := slices.Index(queue, w)
	if i < 0 {
		// A steal already took this claim away.
		return
	}
	queue = slices.Delete(queue, i, i+1)
	if len(queue) == 0 {
		delete(s.locks, name)
		return
	}
	s.locks[name] = queue
	if i == 0 {
		queue[0].sess.notify("locked", name)
	}
}

// ownsLock reports whether sess owns the named lock. The caller holds s.mu.
func (s *server) ownsLock(sess *session, name string) bool {
	queue := s.locks[name]
	return len(queue) > 0 && queue[0].sess == sess
}
