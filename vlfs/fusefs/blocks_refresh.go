package fusefs

import (
	"runtime/debug"
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
// paid them on every write (4 FUSE requests per write+fsync instead of 2;
// fio's p50 0.266-0.280 ms, against 0.213-0.221 ms with the window); now
// it pays them at most once per window. st_blocks is right at once after
// the first fsync of a window, and at most a window after any other.
const refreshWindow = 50 * time.Millisecond

// stopper is a timer as the refresher uses it (time.Timer; tests fake it).
type stopper interface{ Stop() bool }

// blockRefresher spaces out the st_blocks invalidations of each inode (see
// refreshWindow). An fsync that finds its inode invalidated less than a
// window ago leaves it pending, and a timer invalidates the pending inodes
// once their window has passed. Lock order: runMu (held by the timer's
// work for its whole run, so that close can wait for it), then mu, then
// stampTable.mu.
type blockRefresher struct {
	runMu   sync.Mutex
	mu      sync.Mutex
	last    map[vlfs.Ino]time.Time // when each inode was last invalidated (entries older than a window may be dropped)
	pending map[vlfs.Ino]bool      // inodes waiting for their window
	timer   stopper                // armed, or fired and not yet run; nil otherwise
	fireAt  time.Time              // when timer fires
	epoch   uint64                 // counts forgets: an invalidation that raced with one records nothing
	closed  bool                   // the connection is ending: invalidate nothing more
	run     func()                 // what the timer runs (Server.refreshPending)
	after   func(time.Duration, func()) stopper
}

func (r *blockRefresher) init(run func()) {
	r.last = make(map[vlfs.Ino]time.Time)
	r.pending = make(map[vlfs.Ino]bool)
	r.run = run
	r.after = func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }
}

// wait says whether n's invalidation must wait, at now; if so n is left
// pending and the timer armed for the end of its window. If not, epoch is
// the one the invalidation starts in, for record.
func (r *blockRefresher) wait(n vlfs.Ino, now time.Time) (epoch uint64, wait bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return r.epoch, true // nothing is sent once the connection ends
	}
	last, ok := r.last[n]
	if !ok || now.Sub(last) >= refreshWindow {
		delete(r.last, n) // as good as never invalidated
		return r.epoch, false
	}
	r.pending[n] = true
	r.armLocked(last.Add(refreshWindow), now)
	return r.epoch, true
}

// record notes, at now, that n was invalidated for st_blocks count a,
// unless a forget (a FORGET or a size change) came since wait or due
// returned epoch: recording then would bring back what the forget cleared. Skipping
// costs at most one more invalidation.
func (r *blockRefresher) record(t *stampTable, epoch uint64, a vlfs.Attr, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.epoch != epoch {
		return
	}
	t.invalidated(a)
	r.last[a.Ino] = now
	delete(r.pending, a.Ino)
}

// due takes the pending inodes whose window has passed at now, with the
// epoch their invalidations start in, and re-arms the timer for the
// others. Only the timer's work calls it.
func (r *blockRefresher) due(now time.Time) ([]vlfs.Ino, uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timer = nil
	if r.closed {
		return nil, r.epoch
	}
	var out []vlfs.Ino
	var next time.Time
	for n := range r.pending {
		end := r.last[n].Add(refreshWindow)
		if !end.After(now) {
			out = append(out, n)
			delete(r.pending, n)
			continue
		}
		if next.IsZero() || end.Before(next) {
			next = end
		}
	}
	if !next.IsZero() {
		r.armLocked(next, now)
	}
	return out, r.epoch
}

// armLocked makes the timer fire by at, moving it earlier if it is set
// for later. A timer that cannot be stopped is already running its work,
// whose due re-arms for what is left.
func (r *blockRefresher) armLocked(at, now time.Time) {
	if r.timer != nil {
		if !at.Before(r.fireAt) || !r.timer.Stop() {
			return
		}
	}
	r.fireAt = at
	r.timer = r.after(max(at.Sub(now), time.Millisecond), r.run)
}

// forget drops n's history before a FORGET or a size change is recorded
// (stampTable.drop, forgetBlocks): the next fsync must invalidate at once,
// and an invalidation in flight must not record over the change.
func (r *blockRefresher) forget(n vlfs.Ino) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch++
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
// work). It runs outside any request, so it recovers from a panic itself,
// as safely does for requests: a bug here must not end the mount.
func (s *Server) refreshPending() {
	s.refresh.runMu.Lock()
	defer s.refresh.runMu.Unlock()
	defer func() {
		if v := recover(); v != nil {
			s.opt.Logf("fusefs: panic refreshing st_blocks: %v\n%s", v, debug.Stack())
		}
	}()
	ns, epoch := s.refresh.due(time.Now())
	for _, n := range ns {
		s.invalidateBlocks(fuse.NodeID(n), epoch)
	}
}
