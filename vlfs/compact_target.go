package vlfs

import (
	"fmt"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
)

// CompactTarget is the file system seen by the idle-time compactor: it
// lists the blocks of a track with their owners (the reverse map), reads
// them ahead, and moves them, updating the pointer at each (compact_move.go).
type CompactTarget struct{ fs *FS }

var (
	_ compactor.Target      = (*CompactTarget)(nil)
	_ compactor.Foreground  = (*CompactTarget)(nil)
	_ compactor.Indexer     = (*CompactTarget)(nil)
	_ compactor.Waker       = (*CompactTarget)(nil)
	_ compactor.Settler     = (*CompactTarget)(nil)
	_ compactor.TrackLister = (*CompactTarget)(nil)
)

// ListExtraLogTracks implements compactor.TrackLister.
func (t *CompactTarget) ListExtraLogTracks() { t.fs.vol.SetExtraLogTracks(true) }

// CompactTarget returns the file system as a compactor.Target (also a
// Foreground and an Indexer).
func (fs *FS) CompactTarget() *CompactTarget { return &CompactTarget{fs: fs} }

// Space implements compactor.Target.
func (t *CompactTarget) Space(dst []vld.TrackSpace) ([]vld.TrackSpace, int) {
	return t.fs.vol.Space(dst)
}

// EmptyCount implements compactor.Target.
func (t *CompactTarget) EmptyCount() (int, int) {
	return t.fs.vol.EmptyTracks(), t.fs.vol.NumTracks()
}

// NowMs implements compactor.Target.
func (t *CompactTarget) NowMs() float64 { return t.fs.vol.NowMs() }

// Idle implements compactor.Target.
func (t *CompactTarget) Idle(ms float64) { t.fs.vol.Idle(ms) }

// Activity implements compactor.Foreground: every file-system operation
// counts as a foreground request.
func (t *CompactTarget) Activity() (uint64, time.Time) { return t.fs.stats.activity() }

// Wake implements compactor.Waker.
func (t *CompactTarget) Wake() <-chan struct{} { return t.fs.stats.wake }

// Index implements compactor.Indexer. Inodes dirty only for what log
// records stand for (records.go) stay dirty until a full commit, and a
// dirty inode cannot be indexed: the step is then that full commit, the
// idle-time write of the holders that records deferred.
func (t *CompactTarget) Index() (bool, error) {
	fs := t.fs
	fs.lock()
	settle := fs.recordsBlockIndexLocked()
	if settle {
		fs.rec.full = true
		fs.markDirtySinceLocked()
	}
	fs.unlock()
	if settle {
		return true, fs.compactionCommit()
	}
	fs.lock()
	defer fs.unlock()
	if err := fs.compactableLocked(); err != nil {
		return false, err
	}
	// The inode and indirect blocks it reads load with FS.mu released, as
	// a read-only operation's do; each such load counts against the step's
	// budget of reads. Running the step again after a load is safe: it
	// records in the reverse map what holds at that moment, under FS.mu.
	var worked bool
	runs := 0
	err := fs.deferLoadsLocked(func() error {
		w, err := fs.indexLocked(indexReads - runs)
		worked = worked || w
		runs++
		return err
	})
	return worked, err
}

// IndexPending implements compactor.Indexer: some queued inode can be
// looked up now. An inode with unsaved changes is skipped by Index until
// its write-out (indexLocked), so it does not count; dirty inodes are
// always in memory, so one that is not loaded is clean.
func (t *CompactTarget) IndexPending() bool {
	fs := t.fs
	fs.lock()
	defer fs.unlock()
	for ino := range fs.cm.index {
		if in := fs.inodes[ino]; in == nil || !in.hasDirtyState() {
			return true
		}
	}
	return fs.recordsBlockIndexLocked()
}

// recordsBlockIndexLocked reports whether records stand for some state
// while an inode waiting to be indexed is dirty: a full commit would let
// the index go on.
func (fs *FS) recordsBlockIndexLocked() bool {
	if fs.rec.seq == 0 {
		return false
	}
	for ino := range fs.cm.index {
		if in := fs.inodes[ino]; in != nil && in.hasDirtyState() {
			return true
		}
	}
	return false
}

// compactableLocked refuses compaction of a file system that cannot be
// written, and of a volume that does not place eagerly: the compactor
// plugs holes for eager writing; in-place homes and LFS segments (which
// have their own cleaner) would be scattered by it.
func (fs *FS) compactableLocked() error {
	switch p := fs.vol.Placement(); {
	case fs.closed:
		return fmt.Errorf("compaction: file system closed: %w", ErrInvalid)
	case fs.readOnly:
		return fmt.Errorf("compaction: %w", ErrReadOnly)
	case p != vld.PlaceEager:
		return fmt.Errorf("compaction: the volume's placement is %s, and the compactor works on eager volumes only: %w", p, ErrNotSupported)
	}
	return fs.failed
}

// Live implements compactor.Target: the blocks of track tr the reverse map
// knows the owner of. Blocks it does not know (the volume's own, blocks
// freed and not yet released, blocks written by a write-out not yet
// indexed) are pinned; blocks known only as "some block of inode i" queue
// i for an index step and make Live fail with compactor.ErrNotIndexed.
func (t *CompactTarget) Live(tr int) ([]compactor.Block, int, error) {
	fs := t.fs
	used, err := fs.vol.UsedOnTrack(tr)
	if err != nil {
		return nil, 0, err
	}
	fs.lock()
	defer fs.unlock()
	if err := fs.compactableLocked(); err != nil {
		return nil, 0, err
	}
	r := fs.revLocked()
	var live []compactor.Block
	pinned, unindexed := 0, 0
	for _, a := range used {
		o := r.get(a)
		switch {
		case o.needsIndex():
			fs.cm.index[o.ino()] = struct{}{}
			unindexed++
		case o.kind() == ownIBlock && fs.imap.addr(o.id()) != a:
			r.set(a, ownNone) // stale
			pinned++
		case o.movable():
			live = append(live, compactor.Block{Addr: a, Owner: int64(o)})
		default:
			pinned++
		}
	}
	if unindexed > 0 && pinned == 0 {
		return nil, 0, fmt.Errorf("track %d: %d blocks: %w", tr, unindexed, compactor.ErrNotIndexed)
	}
	return live, pinned + unindexed, nil
}

// Prefetch implements compactor.Target: it reads the span of bs (one
// track) as one request and keeps the blocks still owned as listed for
// Move. Indirect blocks loaded and clean are left out: Move encodes them
// from memory (readMovesLocked), so a track holding only those costs no
// read. Earlier prefetched blocks are forgotten.
//
// The read runs with FS.mu released (a track's worth of device time
// holds up no operation) and without the read gate (no commit waits for
// it): the blocks are kept only if no commit released freed blocks
// meanwhile (FS.releases), since only a release lets the volume reuse an
// address, and a block still owned as listed at an address not reused
// holds what it held when listed (eager placement never rewrites in
// place: compactableLocked).
func (t *CompactTarget) Prefetch(bs []compactor.Block) error {
	fs := t.fs
	fs.lock()
	defer fs.unlock()
	if err := fs.compactableLocked(); err != nil {
		return err
	}
	fs.cm.cache = map[vld.Addr][]byte{}
	var keep []compactor.Block
	for _, b := range bs {
		if fs.cm.rev.get(b.Addr) == owner(b.Owner) && !fs.inMemoryLocked(b) {
			keep = append(keep, b)
		}
	}
	if len(keep) == 0 {
		return nil
	}
	lo, hi := keep[0].Addr, keep[0].Addr
	for _, b := range keep {
		lo, hi = min(lo, b.Addr), max(hi, b.Addr)
	}
	bufs := make([][]byte, hi-lo+1)
	for i := range bufs {
		bufs[i] = make([]byte, fs.geo.bs)
	}
	releases := fs.releases
	fs.unlock()
	err := fs.vol.ReadRun(lo, bufs)
	fs.unlockedHook()
	fs.lock()
	if err != nil || fs.releases != releases {
		return err // released meanwhile: Move reads what it needs
	}
	fs.stats.unlockedCompactBlocks.Add(int64(len(bufs)))
	for _, b := range keep {
		if fs.cm.rev.get(b.Addr) == owner(b.Owner) {
			fs.cm.cache[b.Addr] = bufs[b.Addr-lo]
		}
	}
	return nil
}

// inMemoryLocked reports whether Move has b's contents without a read:
// recently written data (recent.go), or an indirect block loaded and clean
// at that address, which it encodes.
func (fs *FS) inMemoryLocked(b compactor.Block) bool {
	o := owner(b.Owner)
	if _, ok := fs.cm.recent.get(b.Addr); ok {
		return true
	}
	if o.kind() != ownNode {
		return false
	}
	in := fs.inodes[o.ino()]
	if in == nil {
		return false
	}
	k := o.nodeKey()
	return in.nodeCleanAt(k, in.nodes[k], b.Addr)
}

// Move implements compactor.Target (compact_move.go).
func (t *CompactTarget) Move(bs []compactor.Block, o vld.HoleOpts) (int, error) {
	return t.fs.compactMove(bs, o, true)
}

// MoveLater implements compactor.Settler: Move without the commit.
func (t *CompactTarget) MoveLater(bs []compactor.Block, o vld.HoleOpts) (int, error) {
	return t.fs.compactMove(bs, o, false)
}

// Settle implements compactor.Settler.
func (t *CompactTarget) Settle() error { return t.fs.settleMoves() }
