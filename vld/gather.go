package vld

import (
	"fmt"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

// Write gathering: a client that is about to commit (vlfs's fsync) calls
// Gather; from then until the commit the volume holds its writes back
// instead of issuing each one, and places each eager write of the commit
// right after the previous one when the blocks there are free. The commit
// then reaches the device as one request, data, metadata and log entries
// together, followed by one flush: one positioning and one controller
// overhead on the simulated disk instead of one per write, and on a host
// file one contiguous vectored write instead of several scattered ones,
// which the host's fdatasync turns into one I/O instead of several.
//
// What is held back is charged to the simulated disk, as one request of
// its blocks, when it is issued: the mechanism only ever sees requests the
// device really gets. A placement that cannot extend the held-back run
// issues it first and then places from where the head really is, exactly
// as without gathering.
//
// Invariant: the device never serves a read, flush or close while writes
// are held back. Every read of the device and every flush issues them
// first (drainLocked), so a reader never sees an older block than the one
// the volume handed out, and a flush still covers every write before it.
// Nothing is ever written but the blocks the client (or the volume) asked
// for: the run is contiguous only where placement made it so; gaps are
// never filled.

// gatherMaxBlocks bounds what a gather holds (and copies): small
// synchronous commits are what gathering is for; a large one gains little
// from being one request rather than several of this size.
const gatherMaxBlocks = 64

// gatherState is the held-back run. Guarded by Volume.mu.
type gatherState struct {
	active  bool     // between Gather and the end of the next commit
	total   int      // blocks held back since Gather
	writes  int      // writes held back since Gather
	expect  int      // blocks the last gathered commit held back: room to look for
	expectW int      // and the writes it held back
	start   int64    // first block of the held-back run
	n       int      // blocks held back
	buf     []byte   // their contents, n*bs bytes; reused across commits
	parts   []int    // blocks of each write that joined the run, in order
	vec     [][]byte // scratch for the vectored write; reused
	// entries: the commit will end with this many log entries after its
	// writes (GatherEntries); 0 if the client did not say.
	entries int
}

// Gather starts gathering the writes of the next commit (Commit or
// WriteCommit), which ends it. Only eager placement gathers; on other
// volumes it does nothing. Nothing about durability changes: writes were
// never durable before the commit, and the commit issues them before its
// log entries or together with them, then flushes.
func (v *Volume) Gather() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.place.kind == PlaceEager && v.phase == phaseRun && !v.opts.ReadOnly {
		v.gather.active, v.gather.total, v.gather.writes = true, 0, 0
	}
}

// GatherEntries tells a gathering volume that the commit will hold its
// writes and then k log entries, nothing else (a file system's small
// record commit: a data block and one record). The first write is then
// placed as WriteCommit places data with entries: at the start of a run
// with room for the entries in the log window, when one request there
// costs less than the data near the head and the entries in the window
// as two (oneRunCheaperLocked).
func (v *Volume) GatherEntries(k int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gather.active {
		v.gather.entries = k
	}
}

// endGatherLocked ends a gather at its commit (the held-back run is issued
// by the commit's flush) and remembers how big it was.
func (v *Volume) endGatherLocked() {
	g := &v.gather
	if g.active {
		g.active, g.expect, g.expectW = false, g.total, g.writes
	}
	g.entries = 0
}

// EndGather stops gathering without a commit and issues what was held
// back, for a client whose commit failed before it reached the volume.
func (v *Volume) EndGather() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.endGatherLocked()
	return v.drainLocked()
}

// gatherEnd returns the block after the held-back run and its track, or
// -1 when nothing is held back.
func (v *Volume) gatherEnd() (int64, int) {
	g := &v.gather
	if g.n == 0 {
		return -1, -1
	}
	return g.start + int64(g.n), v.layout.TrackOf(g.start)
}

// extendLocked places n blocks right after the held-back run when they are
// all free, on the run's track, inside w, and the run stays within
// gatherMaxBlocks: the cheapest place there is for them, as the head
// passes there next with no overhead or positioning of its own. The blocks
// are marked used.
func (v *Volume) extendLocked(n int, w alloc.Window) (run, bool) {
	b, t := v.gatherEnd()
	if b < 0 || n <= 0 || !v.gather.active || v.place.kind != PlaceEager || v.gather.n+n > gatherMaxBlocks {
		return run{}, false
	}
	if b+int64(n) > v.layout.TrackStart(t)+int64(v.layout.TrackBlocks(t)) || !w.Contains(t, v.layout.NumTracks()) {
		return run{}, false
	}
	for i := int64(0); i < int64(n); i++ {
		if v.alloc.IsUsed(b + i) {
			return run{}, false
		}
	}
	for i := int64(0); i < int64(n); i++ {
		v.alloc.MarkUsed(b + i)
	}
	v.alloc.NoteWrite(t)
	v.place.near, v.place.replaces = nil, nil // eager placement ignores them; consume as placeLocked does
	return run{Start: b, N: n}, true
}

// placeEagerLocked places n blocks of a client's eager write: after the
// held-back run when it can be extended, where the whole commit fits when
// that costs little more (roomyLocked), otherwise as placeLocked does.
func (v *Volume) placeEagerLocked(n int) ([]run, error) {
	if r, ok := v.extendLocked(n, alloc.Window{}); ok {
		return []run{r}, nil
	}
	if r, ok := v.withEntriesLocked(n); ok {
		return []run{r}, nil
	}
	if r, ok := v.roomyLocked(n); ok {
		return []run{r}, nil
	}
	return v.placeLocked(n, alloc.Window{})
}

// roomyLocked places the first write of a gathered commit at the start of
// a free run as long as the last gathered commit was, so that the rest of
// the commit can extend it, when the head reaches that run at most W-1
// controller overheads later than the place placeLocked would choose, W
// being the writes of the last gathered commit: every later write that
// joins the run instead of being a request of its own saves at least an
// overhead, so a commit like the last one costs the simulated disk no more
// than without gathering. (Looking for the run only in the log window,
// where the entries must lie, was measured too: bench largefile's
// simulated times were no better, over six seeds.)
func (v *Volume) roomyLocked(n int) (run, bool) {
	g := &v.gather
	want := min(g.expect, gatherMaxBlocks, v.maxTrackBlocks())
	if !g.active || g.n > 0 || v.place.kind != PlaceEager || n <= 0 || want <= n {
		return run{}, false
	}
	ovh := v.m.overheadMs(true)
	start := v.m.now + ovh
	big := v.head.Choose(v.alloc, v.m.head, start, want, alloc.Window{})
	if big.Block < 0 {
		return run{}, false
	}
	if small := v.head.Choose(v.alloc, v.m.head, start, n, alloc.Window{}); small.Block >= 0 && big.Cost > small.Cost+float64(max(g.expectW-1, 1))*ovh {
		return run{}, false
	}
	return v.takeHeadLocked(big.Block, n), true
}

// takeHeadLocked marks the first n blocks of a free run from b used, for
// a write whose commit extends the run after them.
func (v *Volume) takeHeadLocked(b int64, n int) run {
	for i := int64(0); i < int64(n); i++ {
		v.alloc.MarkUsed(b + i)
	}
	v.alloc.NoteWrite(v.layout.TrackOf(b))
	v.place.near, v.place.replaces = nil, nil // eager placement ignores them; consume as placeLocked does
	return run{Start: b, N: n}
}

// withEntriesLocked places the first write of a gathered commit that will
// end with g.entries log entries (GatherEntries) at the start of a run of
// n+entries free blocks in the log window, if that one request is cheaper
// than two; the entries then extend the held-back run.
func (v *Volume) withEntriesLocked(n int) (run, bool) {
	g := &v.gather
	k := g.entries
	if !g.active || g.n > 0 || k <= 0 || n <= 0 || n+k > gatherMaxBlocks || v.place.kind != PlaceEager || !v.oneRunCheaperLocked(n, k) {
		return run{}, false
	}
	one := v.head.Choose(v.alloc, v.m.head, v.m.now+v.m.overheadMs(true), n+k, v.logWindow())
	if one.Block < 0 {
		return run{}, false
	}
	return v.takeHeadLocked(one.Block, n), true
}

// holdLocked appends a write to the held-back run if it continues it (or
// starts one while gathering), and reports whether it did. A write that
// would break the run issues the run first.
func (v *Volume) holdLocked(r run, blocks [][]byte) (bool, error) {
	g := &v.gather
	if g.n > 0 {
		b, t := v.gatherEnd()
		if r.Start != b || v.layout.TrackOf(r.Start+int64(r.N)-1) != t || g.n+r.N > gatherMaxBlocks {
			if err := v.drainLocked(); err != nil {
				return false, err
			}
		}
	}
	if g.n == 0 && (!g.active || r.N > gatherMaxBlocks) {
		return false, nil
	}
	if g.n == 0 {
		g.start, g.buf, g.parts = r.Start, g.buf[:0], g.parts[:0]
	}
	if short := len(g.buf) % v.bs; short != 0 {
		// The run ended in a sector-sized entry and goes on: write the
		// rest of that block too (zeros: the entry's block is its own).
		g.buf = appendZeros(g.buf, v.bs-short)
	}
	for _, b := range blocks {
		g.buf = append(g.buf, b...)
	}
	g.n += r.N
	g.parts = append(g.parts, r.N)
	if g.active {
		g.total += r.N
		g.writes++
	}
	return true, nil
}

// drainLocked issues the held-back run as one request: one vectored device
// write whose parts are the writes that joined it (so a recording device
// sees the same writes as without gathering) and one simulated service.
func (v *Volume) drainLocked() error {
	g := &v.gather
	if g.n == 0 {
		return nil
	}
	tail := 0
	if short := len(g.buf) % v.bs; short != 0 {
		// The run ends in a sector entry: the simulated disk is charged
		// its sectors, the device given the whole block (wholeLastLocked).
		tail = short / disk.SectorSize
		g.buf = appendZeros(g.buf, v.bs-short)
	}
	g.vec = g.vec[:0]
	off := 0
	for _, k := range g.parts {
		g.vec = append(g.vec, g.buf[off:off+k*v.bs])
		off += k * v.bs
	}
	r := run{Start: g.start, N: g.n}
	g.n = 0
	start := time.Now()
	_, err := device.WriteVec(v.dev, g.vec, r.Start*int64(v.bs))
	v.wall.write.Since(start)
	if err != nil {
		v.failed = fmt.Errorf("vld: device write at block %d failed, volume stopped: %w", r.Start, err)
		return v.failed
	}
	v.chargeWriteLocked(r, tail)
	return nil
}

// appendZeros extends b by n zero bytes, allocating only when b lacks the
// capacity (append(b, make(...)...) allocated the zeros too under -race,
// once per commit).
func appendZeros(b []byte, n int) []byte {
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	clear(b[l:])
	return b
}
