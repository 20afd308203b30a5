package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/alloc"
)

// LFS placement (PlaceLFS): the classic log of the MIT Logical Disk that
// the virtual-log paper measures (section 4.4). Blocks are appended
// contiguously to the current segment (default 512 KiB); a segment is
// opened only when clean (every block free). On a device flush (a commit),
// a segment filled to at least the partial-segment threshold (default
// 75 %) is closed as if full; one below it is "written but kept in memory
// to receive more writes": the next append rewrites the already-written
// prefix with the new blocks, as the Logical Disk writes the whole partial
// segment again. That rewrite is charged to the clock (transfer of the
// prefix) but not performed: the device already holds those bytes.
//
// When no clean segment is left the log threads through free blocks in
// address order (counted in LFSStats.Threaded). Cleaning needs a map to
// update: LogicalDisk runs the cleaner (lfs_clean.go); a VLFS
// volume on lfs has none yet and only threads.

// Defaults of the LFS placement.
const (
	lfsSegmentBytes = 512 << 10
	lfsThreshold    = 0.75
)

// lfsLog is the state of PlaceLFS. Guarded by Volume.mu.
type lfsLog struct {
	v         *Volume
	seg       int64   // blocks per segment
	threshold float64 // partial-segment threshold, fraction of seg
	cur       int64   // current segment, -1 none
	fill      int64   // next offset in the current segment
	flushed   int64   // prefix of the current segment written at the last flush
	flushes   int64   // Volume.stats.Flushes when last looked at
	openedMs  []float64
	st        LFSStats
}

// LFSStats count the log's work since open.
type LFSStats struct {
	SegmentsOpened  int64 // clean segments started
	PartialFlushes  int64 // flushes that kept a partial segment open
	RewrittenBlocks int64 // prefix blocks written again after a partial flush
	Threaded        int64 // blocks placed outside a clean segment
	CleanedSegments int64 // segments the cleaner emptied (LogicalDisk)
	CleanedBlocks   int64 // live blocks it copied
}

func newLFSLog(v *Volume) *lfsLog {
	seg := max(int64(lfsSegmentBytes/v.bs), 1)
	nseg := (int64(v.sb.NumBlocks) + seg - 1) / seg
	return &lfsLog{v: v, seg: seg, threshold: lfsThreshold, cur: -1, openedMs: make([]float64, nseg)}
}

func (l *lfsLog) numSegments() int64 { return int64(len(l.openedMs)) }

// segRange is the block range of segment s.
func (l *lfsLog) segRange(s int64) (lo, hi int64) {
	lo = s * l.seg
	return lo, min(lo+l.seg, int64(l.v.sb.NumBlocks))
}

// clean says whether every block of segment s is free (the fixed blocks
// keep segment 0 from ever being clean).
func (l *lfsLog) clean(s int64) bool {
	lo, hi := l.segRange(s)
	return hi-lo == l.seg && l.v.alloc.NextUsed(lo, hi) < 0
}

// cleanCount is the number of clean segments, the current one excluded.
func (l *lfsLog) cleanCount() int64 {
	var n int64
	for s := int64(0); s < l.numSegments(); s++ {
		if s != l.cur && l.clean(s) {
			n++
		}
	}
	return n
}

// noteFlushLocked applies the partial-segment rule once per device flush
// since the last append.
func (l *lfsLog) noteFlush() {
	f := l.v.stats.Flushes
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
func (l *lfsLog) open(w alloc.Window) bool {
	ns := l.numSegments()
	for i := int64(1); i <= ns; i++ {
		s := (l.cur + i + ns) % ns
		lo, _ := l.segRange(s)
		if l.clean(s) && w.Contains(l.v.layout.TrackOf(lo), l.v.layout.NumTracks()) {
			l.cur, l.fill, l.flushed = s, 0, 0
			l.openedMs[s] = l.v.m.now
			l.st.SegmentsOpened++
			return true
		}
	}
	return false
}

// fitsWindow says whether the next n appends stay in the current segment
// and inside w.
func (l *lfsLog) fitsWindow(n int, w alloc.Window) bool {
	l.noteFlush()
	if l.cur < 0 || l.fill+int64(n) > l.seg {
		return false
	}
	lo, _ := l.segRange(l.cur)
	nt := l.v.layout.NumTracks()
	return w.Contains(l.v.layout.TrackOf(lo+l.fill), nt) && w.Contains(l.v.layout.TrackOf(lo+l.fill+int64(n)-1), nt)
}

// place appends n blocks to the log.
func (l *lfsLog) place(n int, w alloc.Window) ([]run, error) {
	l.noteFlush()
	v := l.v
	addrs := make([]int64, 0, n)
	undo := func() {
		for _, b := range addrs {
			v.alloc.MarkFree(b)
		}
	}
	for len(addrs) < n {
		b := l.next(w)
		if b < 0 {
			undo()
			return nil, fmt.Errorf("placing %d blocks in the log: %w", n, ErrNoSpace)
		}
		v.alloc.MarkUsed(b)
		addrs = append(addrs, b)
	}
	return addrRuns(addrs), nil
}

// next is the address of the next block appended, or -1.
func (l *lfsLog) next(w alloc.Window) int64 {
	v := l.v
	for {
		if l.cur < 0 || l.fill >= l.seg {
			if !l.open(w) {
				return l.thread(w)
			}
		}
		lo, _ := l.segRange(l.cur)
		b := lo + l.fill
		if !w.Contains(v.layout.TrackOf(b), v.layout.NumTracks()) {
			return l.thread(w)
		}
		l.fill++
		if v.alloc.IsUsed(b) {
			continue
		}
		l.rewritePrefix()
		return b
	}
}

// thread places one block at the first free address inside w after the
// current segment: the log has no clean segment to go to.
func (l *lfsLog) thread(w alloc.Window) int64 {
	from := int64(0)
	if l.cur >= 0 {
		from, _ = l.segRange(l.cur)
	}
	b := l.v.firstFreeLocked(from, w)
	if b >= 0 {
		l.st.Threaded++
	}
	return b
}

// rewritePrefix charges the rewrite of a partial segment kept open across
// a flush, once, before the first block appended after it.
func (l *lfsLog) rewritePrefix() {
	if l.flushed == 0 {
		return
	}
	v := l.v
	lo, _ := l.segRange(l.cur)
	var bd Breakdown
	for b := lo; b < lo+l.flushed; b++ {
		bd.TransferMs += v.layout.BlockMs(v.layout.TrackOf(b))
	}
	v.m.now += bd.TransferMs
	v.stats.Sim.Add(bd)
	v.stats.WriteSim.Add(bd)
	v.stats.BlocksWritten += l.flushed
	l.st.RewrittenBlocks += l.flushed
	l.flushed = 0
}

// LFSStats reports the log's counters; zero unless the volume is PlaceLFS.
func (v *Volume) LFSStats() LFSStats {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.lfs == nil {
		return LFSStats{}
	}
	return v.place.lfs.st
}
