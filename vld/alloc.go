package vld

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// allocator tracks free space per block, per track and per cylinder, and
// chooses where the next write goes (alloc_search.go). It is not safe for
// concurrent use; the Volume guards it with mu.
type allocator struct {
	l         *disk.Layout
	used      []uint64 // one bit per block, 1 = in use
	trackFree []int32
	trackCap  []int32
	cylFree   []int64
	cylEmpty  []int32  // empty tracks per cylinder
	emptyCyls []uint64 // bit per cylinder: cylEmpty > 0 (alloc_skip.go)
	free      int64
	// freeNow mirrors free for readers without the Volume's mu
	// (Volume.MetaFreeBlocks): file-system operations check the commit's
	// room on every change and must not wait for a device request.
	freeNow atomic.Int64
	empty   int // empty tracks on the disk
	// avoidEmpty keeps writes out of empty tracks while holes elsewhere
	// take them (SetAvoidEmpty).
	avoidEmpty bool
	// threshold is the fill fraction for empty tracks (<= 0: greedy only).
	threshold float64
	active    int // track being filled in threshold mode, or -1
	// sweep is the cylinder the last write went to; searches run forward
	// from the head, wrapping, never backwards (section 4.2).
	decisions int64
	// searchNs is the time spent choosing places (it does no I/O, so it
	// is CPU time) and placed the blocks taken since the volume opened
	// (Volume.Stats reports their ratio: issue 32's cost per block).
	searchNs, placed int64
	runs             *runIndex   // longest free run per track and cylinder (alloc_runs.go)
	phase            *phaseIndex // slots and surfaces that may hold a free block start (alloc_phase.go)
	surfMask         uint16      // one bit per surface
}

func newAllocator(l *disk.Layout, threshold float64) *allocator {
	nb := l.NumBlocks()
	nt := l.NumTracks()
	a := &allocator{
		l:         l,
		used:      make([]uint64, (nb+63)/64),
		trackFree: make([]int32, nt),
		trackCap:  make([]int32, nt),
		cylFree:   make([]int64, l.NumCylinders()),
		cylEmpty:  make([]int32, l.NumCylinders()),
		emptyCyls: make([]uint64, (l.NumCylinders()+63)/64),
		threshold: threshold,
		active:    -1,
		free:      nb,
		runs:      newRunIndex(nt, l.Model().Surfaces, l.NumCylinders()),
		phase:     newPhaseIndex(l),
		surfMask:  uint16(1<<uint(min(l.Model().Surfaces, 16)) - 1),
	}
	a.freeNow.Store(nb)
	for t := 0; t < nt; t++ {
		n := int32(l.TrackBlocks(t))
		a.trackFree[t], a.trackCap[t] = n, n
		c, _ := l.CylSurf(t)
		a.cylFree[c] += int64(n)
		if n > 0 {
			a.cylEmpty[c]++
			a.empty++
		}
		a.noteCylEmpty(c)
		a.runs.longest[t] = n
		leaf := &a.runs.tree[a.runs.size+c]
		*leaf = max(*leaf, n)
	}
	for i := a.runs.size - 1; i >= 1; i-- {
		a.runs.tree[i] = max(a.runs.tree[2*i], a.runs.tree[2*i+1])
	}
	return a
}

func (a *allocator) isUsed(b int64) bool { return a.used[b>>6]&(1<<(uint(b)&63)) != 0 }

// markUsed takes block b out of free space. It reports false if b was
// already in use.
func (a *allocator) markUsed(b int64) bool {
	if a.isUsed(b) {
		return false
	}
	a.used[b>>6] |= 1 << (uint(b) & 63)
	t := a.l.TrackOf(b)
	a.runs.touch(t)
	c, _ := a.l.CylSurf(t)
	if a.trackFree[t] == a.trackCap[t] {
		a.empty--
		a.cylEmpty[c]--
		a.noteCylEmpty(c)
	}
	a.trackFree[t]--
	a.cylFree[c]--
	a.free--
	a.placed++
	a.freeNow.Store(a.free)
	return true
}

// markFree returns block b to free space. It reports false if b was free.
func (a *allocator) markFree(b int64) bool {
	if !a.isUsed(b) {
		return false
	}
	a.used[b>>6] &^= 1 << (uint(b) & 63)
	t := a.l.TrackOf(b)
	a.runs.touch(t)
	a.notePhaseFree(b, t)
	c, _ := a.l.CylSurf(t)
	a.trackFree[t]++
	a.cylFree[c]++
	a.free++
	a.freeNow.Store(a.free)
	if a.trackFree[t] == a.trackCap[t] {
		a.empty++
		a.cylEmpty[c]++
		a.noteCylEmpty(c)
		if a.active == t {
			a.active = -1
		}
	}
	return true
}

// freeRun reports whether blocks [b, b+n) are all free.
func (a *allocator) freeRun(b int64, n int) bool {
	return a.nextUsed(b, b+int64(n)) < 0
}

// nextFree returns the first free block in [from, to), or -1. It skips
// whole used words, which keeps scans of nearly full tracks cheap.
func (a *allocator) nextFree(from, to int64) int64 {
	for b := from; b < to; {
		w := ^a.used[b>>6] >> (uint(b) & 63)
		if w == 0 {
			b = (b | 63) + 1
			continue
		}
		b += int64(bits.TrailingZeros64(w))
		if b < to {
			return b
		}
		return -1
	}
	return -1
}

// nextUsed returns the first used block in [from, to), or -1, a word at a
// time.
func (a *allocator) nextUsed(from, to int64) int64 {
	for b := from; b < to; {
		w := a.used[b>>6] >> (uint(b) & 63)
		if w == 0 {
			b = (b | 63) + 1
			continue
		}
		b += int64(bits.TrailingZeros64(w))
		if b < to {
			return b
		}
		return -1
	}
	return -1
}

// timeEvery is the sampling of decision times: reading the clock twice
// cost 23 % of a cheap decision (an empty disk's), so one decision in
// timeEvery is timed and counted timeEvery times. Decisions come in short
// repeating patterns (placeLocked's halving tries 6 lengths), and 8 is
// prime to them, so every kind is sampled alike.
const timeEvery = 8

// startTimer begins timing a decision if it is sampled (the zero time if
// not): defer a.timed(a.startTimer()), after decisions is counted.
func (a *allocator) startTimer() time.Time {
	if a.decisions%timeEvery != 1 {
		return time.Time{}
	}
	return time.Now()
}

// timed adds a sampled decision's time to the search time.
func (a *allocator) timed(t0 time.Time) {
	if !t0.IsZero() {
		a.searchNs += timeEvery * int64(time.Since(t0))
	}
}

// resetCost forgets the placements counted so far (the blocks recovery
// marked in use were found, not placed).
func (a *allocator) resetCost() { a.searchNs, a.placed = 0, 0 }

// check recomputes the counters from the bitmap.
func (a *allocator) check() error {
	var free int64
	empty := 0
	cylFree := make([]int64, len(a.cylFree))
	cylEmpty := make([]int32, len(a.cylEmpty))
	for t := range a.trackFree {
		start := a.l.TrackStart(t)
		var f int32
		for b := start; b < start+int64(a.trackCap[t]); b++ {
			if !a.isUsed(b) {
				f++
			}
		}
		if f != a.trackFree[t] {
			return fmt.Errorf("track %d: %d free blocks counted, %d recorded: %w", t, f, a.trackFree[t], ErrCorrupt)
		}
		c, _ := a.l.CylSurf(t)
		cylFree[c] += int64(f)
		free += int64(f)
		if f == a.trackCap[t] && f > 0 {
			empty++
			cylEmpty[c]++
		}
	}
	if err := a.checkRuns(); err != nil {
		return err
	}
	if err := a.checkPhase(); err != nil {
		return err
	}
	if free != a.free || empty != a.empty {
		return fmt.Errorf("allocator: free %d/%d, empty tracks %d/%d (counted/recorded): %w", free, a.free, empty, a.empty, ErrCorrupt)
	}
	for c := range cylFree {
		if cylFree[c] != a.cylFree[c] || cylEmpty[c] != a.cylEmpty[c] {
			return fmt.Errorf("cylinder %d: free %d/%d, empty %d/%d: %w", c, cylFree[c], a.cylFree[c], cylEmpty[c], a.cylEmpty[c], ErrCorrupt)
		}
		if set := a.emptyCyls[c>>6]&(1<<(uint(c)&63)) != 0; set != (cylEmpty[c] > 0) {
			return fmt.Errorf("cylinder %d: %d empty tracks, but the empty-cylinder set says %v: %w", c, cylEmpty[c], set, ErrCorrupt)
		}
	}
	return nil
}
