package vlfs

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// groupCommit lets concurrent fsyncs share one volume commit: a caller
// needs a commit that starts after it arrived (or, if the file system has
// not changed since a commit took its snapshot, that commit); the first
// waiter to find no commit running leads the next one, for everybody
// waiting.
type groupCommit struct {
	mu      sync.Mutex
	cond    *sync.Cond
	running bool
	started uint64 // commits started
	done    uint64 // commits finished
	lastErr error  // result of commit number done
}

// syncAll makes the whole current file-system state durable. It returns
// once a commit that started after the call has finished.
func (fs *FS) syncAll() error {
	return fs.syncThrough(0)
}

// syncThrough returns once commit number need has finished, leading
// commits while none runs; need 0 means a commit that starts after the
// call. A commit that failed redirties what it held, so the result of the
// last one finished answers for every earlier snapshot too.
func (fs *FS) syncThrough(need uint64) error {
	g := &fs.gc
	g.mu.Lock()
	defer g.mu.Unlock()
	if need == 0 {
		need = g.started + 1
	}
	led := false
	for g.done < need {
		if g.running {
			g.cond.Wait()
			continue
		}
		led = true
		fs.leadLocked()
	}
	if !led {
		fs.stats.grouped.Add(1)
	}
	return g.lastErr
}

// commitError is the last finished commit's error, "" if it succeeded.
func (fs *FS) commitError() string {
	g := &fs.gc
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.lastErr == nil {
		return ""
	}
	return g.lastErr.Error()
}

// leadLocked runs one commit as the group's leader; it needs gc.mu held
// and no commit running, and releases gc.mu while the commit runs.
func (fs *FS) leadLocked() {
	g := &fs.gc
	g.running = true
	g.started++
	seq := g.started
	g.mu.Unlock()
	err := fs.commit(seq)
	if err != nil {
		fs.stats.failedCommits.Add(1)
		fs.logf("vlfs: commit %d failed, its changes are not durable: %v", seq, err)
	}
	g.mu.Lock()
	g.running = false
	g.done, g.lastErr = seq, err
	g.cond.Broadcast()
}

// commit writes out everything dirty and commits it with the changed
// inode-map pieces, as one consistent snapshot. Under FS.mu it writes the
// data, directory, xattr and indirect blocks and encodes the inode blocks;
// then, with only commitMu held, the volume writes the inode blocks and the
// pieces that point at them in one WriteCommit (one request where it fits)
// and flushes; then FS.mu again to record where the inode blocks went.
func (fs *FS) commit(seq uint64) error {
	fs.commitMu.Lock()
	defer fs.commitMu.Unlock()
	start := time.Now()
	// Until its snapshot, this commit answers for every change made so
	// far (joinLocked); a commit that ends before it answers for none.
	fs.mu.Lock()
	fs.unsnapped = seq
	fs.mu.Unlock()
	defer func() {
		fs.mu.Lock()
		if fs.unsnapped == seq {
			fs.unsnapped = 0
		}
		fs.mu.Unlock()
	}()
	// Most of a large commit's data goes first, in batches without FS.mu
	// (writeout_batch.go); a small one stays whole, one request with its
	// metadata where it fits (gather.go).
	// Waiting for the batches in flight releases FS.mu, and writers buffer
	// more meanwhile (stress-ng's fallocates reserved a gigabyte at a
	// time): that too goes out unlocked, a few rounds at most, so that the
	// plan under FS.mu writes only what came in the last moment.
	var locked time.Time
	for round := 0; ; round++ {
		if err := fs.writeOutData(commitInlineBytes, true); err != nil {
			return err
		}
		fs.lock()
		if err := fs.commitStartLocked(); err != nil {
			fs.unlock()
			if errors.Is(err, errReadOnlyCommit) {
				return nil // nothing can have changed
			}
			return err
		}
		fs.waitFlightsLocked()
		if err := fs.settleReservationsLocked(); err != nil { // made while waiting
			fs.unlock()
			return err
		}
		locked = time.Now()
		if round+1 >= commitWriteOutRounds || !fs.unlockedWriteOut() ||
			fs.pendingBytesLocked(true) <= commitInlineBytes {
			break
		}
		fs.unlock()
	}
	// The volume holds the writes below the inode blocks back and places
	// each after the one before, so that the whole commit reaches the
	// device as one request where there is room (vld/gather.go).
	fs.vol.Gather()
	var rp *recordPlan
	var p *commitPlan
	var err error
	if fs.recordableLocked() {
		rp, err = fs.planRecordLocked()
	}
	if err == nil && rp == nil {
		p, err = fs.planCommitLocked()
	}
	if err == nil {
		err = fs.releaseFreesLocked()
		if err != nil && p != nil {
			fs.imap.redirty(p.pieces)
		}
	}
	// What the log holds is this plan's now; after a failure the next
	// commit writes everything from memory (a full one).
	fs.rec.reset()
	if err != nil {
		fs.rec.full = true
		fs.unlock()
		if gerr := fs.vol.EndGather(); gerr != nil {
			return errors.Join(err, fs.volErr("commit", gerr))
		}
		return err
	}
	fs.dirtySince = time.Time{}
	fs.snapshot, fs.unsnapped = seq, 0
	fs.cm.unsettled = 0 // this snapshot holds every move so far
	fs.committing = true
	fs.unlock()

	fs.stats.commits.Add(1)
	planned := time.Now()
	fs.stats.wall.writeOut.Record(locked.Sub(start))
	fs.stats.wall.plan.Record(planned.Sub(locked))
	var addrs []vld.Addr
	if rp != nil {
		err = fs.landRecord(rp)
	} else {
		addrs, err = fs.landCommit(p)
	}
	fs.stats.wall.volume.Since(planned)
	fs.lock()
	defer fs.unlock()
	defer fs.stats.wall.commit.Since(start)
	fs.committing = false
	if err != nil {
		if p != nil {
			fs.imap.redirty(p.pieces)
		}
		fs.rec.full = true
		fs.markDirtySinceLocked()
		return fs.volErr("commit", err)
	}
	if rp != nil {
		fs.applyRecordLocked(rp)
		return nil
	}
	fs.applyCommitLocked(p, addrs)
	return nil
}

// commitInlineBytes is the buffered data a commit writes out under FS.mu
// with its metadata: about what one gathered request holds (vld's
// gatherMaxBlocks, 64 blocks). Beyond it the data goes first in batches
// with FS.mu released.
const commitInlineBytes = 64 << 12

// commitWriteOutRounds bounds the unlocked write-outs of one commit: a
// stream of writers must not keep a commit from ever starting its plan.
const commitWriteOutRounds = 3

// commitStartLocked says whether a commit may run.
func (fs *FS) commitStartLocked() error {
	if fs.readOnly {
		return errReadOnlyCommit
	}
	return fs.failed
}

// landRecord runs the volume's part of a record commit: the record, with
// the data the volume holds back (one request where it fits), and a flush.
func (fs *FS) landRecord(rp *recordPlan) error {
	if len(rp.rec.Files) == 0 {
		// Nothing changed since the last record; the volume still takes
		// the commit, which makes blocks freed before it reusable.
		return fs.vol.Commit(nil)
	}
	pl, err := rp.payload(fs.geo.payload)
	if err != nil {
		return errors.Join(err, fs.vol.EndGather())
	}
	return fs.vol.Commit(pl)
}

// landCommit runs the volume's part of a commit.
func (fs *FS) landCommit(p *commitPlan) ([]vld.Addr, error) {
	if len(p.bufs) == 0 {
		return nil, fs.vol.Commit(p.payload(nil))
	}
	return fs.vol.WriteCommitOpts(p.bufs, p.writeOpts(), p.pieces, p.payload)
}

// releaseFreesLocked hands the blocks freed before this snapshot to the
// volume, which reuses them once the commit is durable.
func (fs *FS) releaseFreesLocked() error {
	if len(fs.pendingFree) > 0 {
		// A Read that resolved one of these blocks before it was freed
		// may still be reading it without FS.mu: wait for every read in
		// flight (new ones cannot start, FS.mu is held) before the volume
		// may reuse the blocks.
		fs.readGate.Lock()
		fs.readGate.Unlock() //nolint:staticcheck // a barrier, not a critical section
		fs.releases++
	}
	for i, a := range fs.pendingFree {
		if err := fs.vol.Free(a); err != nil {
			fs.pendingFree = fs.pendingFree[i+1:]
			fs.failed = fmt.Errorf("freeing block %d: %w: %w", a, err, ErrCorrupt)
			return fs.failed
		}
	}
	fs.pendingFree = fs.pendingFree[:0]
	return nil
}

func (fs *FS) markDirtySinceLocked() {
	if fs.dirtySince.IsZero() {
		fs.dirtySince = wallNow()
	}
}

// Fsync makes ino's data and metadata durable, and with them the whole
// file system (a commit is a snapshot of everything). If nothing changed
// since the last commit took its snapshot, that commit is enough: Fsync
// waits for it if it is still running (a concurrent fsync's, which took
// this caller's changes with it) and returns at once if it is done.
func (fs *FS) Fsync(ino Ino, datasync bool) error {
	defer fs.stats.count(opFsync, 0)
	defer fs.stats.wall.fsync.Since(time.Now())
	fs.lock()
	_, err := fs.getLocked(ino)
	var need uint64
	if err == nil {
		need = fs.syncTargetLocked()
	}
	fs.unlock()
	if err != nil {
		return err
	}
	return fs.syncThrough(need)
}

// syncTargetLocked returns the number of the commit a sync called now
// needs: one whose snapshot holds the whole current state (coveredLocked),
// else the running commit if it has not taken its snapshot yet (it takes
// it later under FS.mu, so every change made before this call is in it),
// else 0, a commit that starts after the call. Joining the running commit
// spares the wait for it to end before a commit of one's own: under
// stress-ng's mix a commit spent most of its time writing out buffered
// data before its snapshot.
func (fs *FS) syncTargetLocked() uint64 {
	if need := fs.coveredLocked(); need != 0 {
		fs.stats.covered.Add(1)
		return need
	}
	return fs.joinLocked()
}

// joinLocked returns the running commit's number if it has not taken its
// snapshot yet, else 0.
func (fs *FS) joinLocked() uint64 {
	if fs.failed != nil || fs.unsnapped == 0 {
		return 0
	}
	fs.stats.joined.Add(1)
	return fs.unsnapped
}

// coveredLocked returns the number of the commit whose snapshot holds the
// whole current state, or 0 if something changed since the last snapshot
// (or the volume failed, or no commit has run since mount, when only a
// new commit can answer).
func (fs *FS) coveredLocked() uint64 {
	if fs.failed != nil || !fs.dirtySince.IsZero() {
		return 0
	}
	return fs.snapshot
}

// Sync makes the whole file system durable.
func (fs *FS) Sync() error {
	defer fs.stats.count(opSync, 0)
	defer fs.stats.wall.fsync.Since(time.Now())
	// A commit still to take its snapshot answers for it, but not one
	// taken already, even with nothing changed since: Sync always ends
	// with a commit that began after the call, which also makes the
	// blocks freed before the last one reusable (callers count on it).
	fs.mu.Lock()
	need := fs.joinLocked()
	fs.mu.Unlock()
	return fs.syncThrough(need)
}

// flusher commits in the background so that no unforced change waits
// longer than FlushInterval: it looks every tick (a quarter of the
// interval) and commits once the oldest change would pass the interval
// before the next look, so the commit starts between 3/4 of the interval
// and the interval after that change (waiting for a full interval of age
// let changes wait up to 5/4 of it).
func (fs *FS) flusher() {
	defer close(fs.stopped)
	tick := max(fs.opts.FlushInterval/4, time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	quietTicks, copied, commits := 0, false, fs.stats.commits.Load()
	for {
		select {
		case <-fs.stop:
			return
		case <-t.C:
		}
		fs.mu.Lock()
		due := !fs.dirtySince.IsZero() && time.Since(fs.dirtySince)+tick >= fs.opts.FlushInterval
		if fs.fullDueLocked(fs.opts.FlushInterval) {
			// Records have stood for the blocks they point past long
			// enough: write those blocks, so that a crash replays little.
			fs.rec.full, due = true, true
		}
		// Quiet: nothing to commit now and no commit since the last tick
		// (a stream of small fsyncs leaves the file system clean between
		// them, yet is anything but idle).
		n := fs.stats.commits.Load()
		quiet := !due && n == commits && fs.dirtySince.IsZero() && fs.rec.deferredSince.IsZero() && fs.failed == nil
		commits = n
		fs.mu.Unlock()
		if due {
			if err := fs.syncAll(); err != nil {
				fs.logf("vlfs: background flush: %v", err)
			}
		}
		// A mount with nothing to commit for a whole flush interval has
		// the volume copy the pieces its commits left in single log
		// entries (vld.Volume.Protect): a damaged block then loses
		// nothing even before the unmount. Once per quiet spell.
		if !quiet {
			quietTicks, copied = 0, false
			continue
		}
		if quietTicks++; quietTicks >= 4 && !copied {
			copied = true
			if err := fs.vol.Protect(); err != nil && !errors.Is(err, vld.ErrClosed) {
				fs.logf("vlfs: copying the pieces at idle time: %v", err)
			}
		}
	}
}

func wallNow() time.Time { return time.Now() }

func newCond(mu *sync.Mutex) *sync.Cond { return sync.NewCond(mu) }
