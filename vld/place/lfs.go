package place

import (
	"github.com/vlfs/vlfs/vld/alloc"
)

var _ Policy = (*LFS)(nil)

// LFS placement (vld.PlaceLFS): the classic log of the MIT Logical Disk that
// the virtual-log paper measures (section 4.4). Blocks are appended
// contiguously to the current segment (default 512 KiB); a segment is
// opened only when clean (every block free). On a device flush (a commit),
// a segment filled to at least the partial-segment threshold (default
// 75 %) is closed as if full; one below it is "written but kept in memory
// to receive more writes": the next append rewrites the already-written
// prefix with the new blocks, as the Logical Disk writes the whole partial
// segment again. That rewrite is charged to the clock (transfer of the
// prefix: LFS.charge) but not performed: the device already holds those
// bytes.
//
// When no clean segment is left the log threads through free blocks in
// address order (counted in LFSStats.Threaded). Cleaning needs a map to
// update: the logical disk runs the cleaner (vld/logical/lfs_clean.go),
// through the volume, which lists the segments it may clean; a VLFS
// volume on lfs has none yet and only threads.

// Defaults of the LFS placement.
const (
	lfsSegmentBytes = 512 << 10
	lfsThreshold    = 0.75
)

// LFS is the state of LFS placement.
type LFS struct {
	d         Disk
	seg       int64   // blocks per segment
	threshold float64 // partial-segment threshold, fraction of seg
	cur       int64   // current segment, -1 none
	fill      int64   // next offset in the current segment
	flushed   int64   // prefix of the current segment written at the last flush
	flushes   int64   // At.Flushes when last looked at
	openedMs  []float64
	st        LFSStats
	// charge charges the rewrite of a partial segment's prefix, ms of
	// transfer for that many blocks, to the volume's clock and counters.
	charge func(ms float64, blocks int64)
}

// LFSStats count the log's work since open.
type LFSStats struct {
	SegmentsOpened  int64 // clean segments started
	PartialFlushes  int64 // flushes that kept a partial segment open
	RewrittenBlocks int64 // prefix blocks written again after a partial flush
	Threaded        int64 // blocks placed outside a clean segment
	CleanedSegments int64 // segments the cleaner emptied (a logical disk)
	CleanedBlocks   int64 // live blocks it copied
}

// NewLFS places on d as a log of 512 KiB segments of blocks of bs bytes;
// charge is told of every rewrite of a partial segment's prefix (the
// transfer time and the blocks), which the volume charges to its clock.
func NewLFS(d Disk, bs int, charge func(ms float64, blocks int64)) *LFS {
	seg := max(int64(lfsSegmentBytes/bs), 1)
	nseg := (d.blocks() + seg - 1) / seg
	return &LFS{d: d, seg: seg, threshold: lfsThreshold, cur: -1, openedMs: make([]float64, nseg), charge: charge}
}

// Segments is the number of segments on the volume.
func (l *LFS) Segments() int64 { return int64(len(l.openedMs)) }

// SegmentBlocks is the size of a segment in blocks.
func (l *LFS) SegmentBlocks() int64 { return l.seg }

// Current is the segment being filled, -1 if none.
func (l *LFS) Current() int64 { return l.cur }

// OpenedMs is the simulated time segment s was last opened.
func (l *LFS) OpenedMs(s int64) float64 { return l.openedMs[s] }

// Stats reports the log's counters.
func (l *LFS) Stats() LFSStats { return l.st }

// Bounds is the block range of segment s.
func (l *LFS) Bounds(s int64) (lo, hi int64) {
	lo = s * l.seg
	return lo, min(lo+l.seg, l.d.blocks())
}

// Clean says whether every block of segment s is free (the fixed blocks
// keep segment 0 from ever being clean).
func (l *LFS) Clean(s int64) bool {
	lo, hi := l.Bounds(s)
	return hi-lo == l.seg && l.d.Alloc.NextUsed(lo, hi) < 0
}

// CleanCount is the number of clean segments, the current one excluded.
func (l *LFS) CleanCount() int64 {
	var n int64
	for s := int64(0); s < l.Segments(); s++ {
		if s != l.cur && l.Clean(s) {
			n++
		}
	}
	return n
}

// noteFlush applies the partial-segment rule once per device flush
// since the last append.
func (l *LFS) noteFlush(at *At) {
	f := at.Flushes
	if f == l.flushes {
		return
	}
	l.flushes = f
	if l.cur < 0 || l.fill == 0 || l.fill >= l.seg {
		return
	}
	if float64(l.fill) >= l.threshold*float64(l.seg) {
		l.fill = l.seg // closed as if full
		l.flushed = 0
		return
	}
	l.flushed = l.fill
	l.st.PartialFlushes++
}

// open starts the next clean segment after the current one (address
// order, wrapping) whose first track is inside w; false if there is none.
func (l *LFS) open(at *At, w alloc.Window) bool {
	ns := l.Segments()
	for i := int64(1); i <= ns; i++ {
		s := (l.cur + i + ns) % ns
		lo, _ := l.Bounds(s)
		if l.Clean(s) && w.Contains(l.d.Layout.TrackOf(lo), l.d.Layout.NumTracks()) {
			l.cur, l.fill, l.flushed = s, 0, 0
			l.openedMs[s] = at.NowMs
			l.st.SegmentsOpened++
			return true
		}
	}
	return false
}

// FitsWindow says whether the next n appends, at the moment at, stay in
// the current segment and inside w: then a commit's data and entries go
// as one run.
func (l *LFS) FitsWindow(at At, n int, w alloc.Window) bool {
	l.noteFlush(&at)
	if l.cur < 0 || l.fill+int64(n) > l.seg {
		return false
	}
	lo, _ := l.Bounds(l.cur)
	nt := l.d.Layout.NumTracks()
	return w.Contains(l.d.Layout.TrackOf(lo+l.fill), nt) && w.Contains(l.d.Layout.TrackOf(lo+l.fill+int64(n)-1), nt)
}

// Place appends r's blocks to the log, in order (hints are ignored).
func (l *LFS) Place(at At, r Request) ([]Run, error) {
	l.noteFlush(&at)
	n, w := r.N, r.Window
	addrs := make([]int64, 0, n)
	undo := func() {
		for _, b := range addrs {
			l.d.Alloc.MarkFree(b)
		}
	}
	for len(addrs) < n {
		b := l.next(&at, w)
		if b < 0 {
			undo()
			return nil, noSpace("placing %d blocks in the log", n)
		}
		l.d.Alloc.MarkUsed(b)
		addrs = append(addrs, b)
	}
	return addrRuns(addrs), nil
}

// next is the address of the next block appended, or -1.
func (l *LFS) next(at *At, w alloc.Window) int64 {
	lay := l.d.Layout
	for {
		if l.cur < 0 || l.fill >= l.seg {
			if !l.open(at, w) {
				return l.thread(w)
			}
		}
		lo, _ := l.Bounds(l.cur)
		b := lo + l.fill
		if !w.Contains(lay.TrackOf(b), lay.NumTracks()) {
			return l.thread(w)
		}
		l.fill++
		if l.d.Alloc.IsUsed(b) {
			continue
		}
		l.rewritePrefix(at)
		return b
	}
}

// thread places one block at the first free address inside w after the
// current segment: the log has no clean segment to go to.
func (l *LFS) thread(w alloc.Window) int64 {
	from := int64(0)
	if l.cur >= 0 {
		from, _ = l.Bounds(l.cur)
	}
	b := l.d.firstFree(from, w)
	if b >= 0 {
		l.st.Threaded++
	}
	return b
}

// rewritePrefix charges the rewrite of a partial segment kept open across
// a flush, once, before the first block appended after it; the clock of
// at moves on by its transfer, as the volume's does.
func (l *LFS) rewritePrefix(at *At) {
	if l.flushed == 0 {
		return
	}
	lay := l.d.Layout
	lo, _ := l.Bounds(l.cur)
	var ms float64
	for b := lo; b < lo+l.flushed; b++ {
		ms += lay.BlockMs(lay.TrackOf(b))
	}
	at.NowMs += ms
	l.charge(ms, l.flushed)
	l.st.RewrittenBlocks += l.flushed
	l.flushed = 0
}
