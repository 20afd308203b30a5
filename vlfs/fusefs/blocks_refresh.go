package fusefs

import (
	"sync"
	"time"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// refreshWindow is how long after invalidating an inode's attributes for
// st_blocks the next such invalidation waits. Each one costs the file's
// next write two round trips: the kernel fetches the attributes again, and
// since a refresh clears the inode's S_NOSEC flag it also asks for
// security.capability. A writer appending 4 KiB and fsyncing in a loop
// paid them on every write (4 FUSE requests per write+fsync instead of 2,
// p50 0.27-0.29 ms against 0.21-0.26 ms without); now it pays them at most
// once per window, and st_blocks is right at most a window after an fsync
// (at once after the first fsync of a window).
const refreshWindow = 50 * time.Millisecond

// blockRefresher spaces out the st_blocks invalidations of each inode (see
// refreshWindow). An fsync that finds its inode invalidated less than a
// window ago leaves it pending, and a timer invalidates the pending inodes
// once their window has passed. Lock order: runMu, held by the timer's
// work for its whole run (so that close can wait for it), before mu.
type blockRefresher struct {
	runMu   sync.Mutex
	mu      sync.Mutex
	last    map[vlfs.Ino]time.Time // when each inode was last invalidated
	pending map[vlfs.Ino]bool      // inodes waiting for their window
	timer   *time.Timer            // nil when nothing is pending
	closed  bool                   // the connection is ending: invalidate nothing more
	run     func()                 // what the timer runs (Server.refreshPending)
}

func (r *blockRefresher) init(run func()) {
	r.last = make(map[vlfs.Ino]time.Time)
	r.pending = make(map[vlfs.Ino]bool)
	r.run = run
}

// wait says whether n's invalidation must wait, at now; if so n is left
// pending and the timer armed.
func (r *blockRefresher) wait(n vlfs.Ino, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return true // nothing is sent once the connection ends
	}
	last, ok := r.last[n]
	if !ok || now.Sub(last) >= refreshWindow {
		return false
	}
	r.pending[n] = true
	r.armLocked(last.Add(refreshWindow).Sub(now))
	return true
}

// done records that n was invalidated at now.
func (r *blockRefresher) done(n vlfs.Ino, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last[n] = now
	delete(r.pending, n)
}

// due takes the pending inodes whose window has passed at now, and re-arms
// the timer for the others.
func (r *blockRefresher) due(now time.Time) []vlfs.Ino {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	if r.closed {
		return nil
	}
	var out []vlfs.Ino
	var next time.Duration
	for n := range r.pending {
		left := r.last[n].Add(refreshWindow).Sub(now)
		if left <= 0 {
			out = append(out, n)
			delete(r.pending, n)
			continue
		}
		if next == 0 || left < next {
			next = left
		}
	}
	if next > 0 {
		r.armLocked(next)
	}
	return out
}

func (r *blockRefresher) armLocked(d time.Duration) {
	if r.timer == nil {
		r.timer = time.AfterFunc(max(d, time.Millisecond), r.run)
	}
}

// forget drops n's history: after a size change the next fsync must
// invalidate at once (stampTable.forgetBlocks), and a forgotten inode
// needs nothing.
func (r *blockRefresher) forget(n vlfs.Ino) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.last, n)
	delete(r.pending, n)
}

// close stops the timer and waits for a run in progress; nothing is
// invalidated afterwards, so the connection and the file system can close.
func (r *blockRefresher) close() {
	r.mu.Lock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
		r.timer = nil
	}
	clear(r.pending)
	r.mu.Unlock()
	// Taking runMu waits for a run in progress; a later one finds closed.
	r.runMu.Lock()
	r.runMu.Unlock()
}

// refreshPending invalidates the inodes whose wait is over (the timer's
// work).
func (s *Server) refreshPending() {
	s.refresh.runMu.Lock()
	defer s.refresh.runMu.Unlock()
	for _, n := range s.refresh.due(time.Now()) {
		s.invalidateBlocks(fuse.NodeID(n))
	}
}
