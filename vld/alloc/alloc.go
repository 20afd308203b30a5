package alloc

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// Allocator tracks free space per block, per track and per cylinder, and
// chooses where the next write goes (search.go). It is not safe for
// concurrent use, except FreeNow; the Volume guards it with its mu.
type Allocator struct {
	l         *disk.Layout
	used      []uint64 // one bit per block, 1 = in use
	trackFree []int32
	trackCap  []int32
	cylFree   []int64
	cylEmpty  []int32  // empty tracks per cylinder
	emptyCyls []uint64 // bit per cylinder: cylEmpty > 0 (skip.go)
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
	runs             *runIndex   // longest free run per track and cylinder (runs.go)
	phase            *phaseIndex // slots and surfaces that may hold a free block start (phase.go)
	surfMask         uint16      // one bit per surface
}

// New makes the allocator of layout l with every block free. threshold is
// the fill fraction of section 4.2 for empty tracks (<= 0: greedy only).
func New(l *disk.Layout, threshold float64) *Allocator {
	nb := l.NumBlocks()
	nt := l.NumTracks()
	a := &Allocator{
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

// IsUsed reports whether block b is in use.
func (a *Allocator) IsUsed(b int64) bool { return a.used[b>>6]&(1<<(uint(b)&63)) != 0 }

// MarkUsed takes block b out of free space. It reports false if b was
// already in use.
func (a *Allocator) MarkUsed(b int64) bool {
	if a.IsUsed(b) {
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

// MarkFree returns block b to free space. It reports false if b was free.
func (a *Allocator) MarkFree(b int64) bool {
	if !a.IsUsed(b) {
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

// FreeRun reports whether blocks [b, b+n) are all free.
func (a *Allocator) FreeRun(b int64, n int) bool {
	return a.NextUsed(b, b+int64(n)) < 0
}

// NextFree returns the first free block in [from, to), or -1. It skips
// whole used words, which keeps scans of nearly full tracks cheap.
func (a *Allocator) NextFree(from, to int64) int64 {
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

// NextUsed returns the first used block in [from, to), or -1, a word at a
// time.
func (a *Allocator) NextUsed(from, to int64) int64 {
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
// repeating patterns (the volume's placeLocked tries 6 halved lengths),
// and 8 is prime to them, so every kind is sampled alike.
const timeEvery = 8

// StartDecision counts a placement decision and begins timing it if it is
// sampled (the zero time if not). A search outside the allocator (a
// profiled head) brackets its decision with
// defer a.EndDecision(a.StartDecision()), as Choose does.
func (a *Allocator) StartDecision() time.Time {
	a.decisions++
	return a.startTimer()
}

// EndDecision adds a sampled decision's time (t0 from StartDecision) to
// the search time.
func (a *Allocator) EndDecision(t0 time.Time) { a.timed(t0) }

// startTimer begins timing a decision if it is sampled (the zero time if
// not), after decisions is counted.
func (a *Allocator) startTimer() time.Time {
	if a.decisions%timeEvery != 1 {
		return time.Time{}
	}
	return time.Now()
}

// timed adds a sampled decision's time to the search time.
func (a *Allocator) timed(t0 time.Time) {
	if !t0.IsZero() {
		a.searchNs += timeEvery * int64(time.Since(t0))
	}
}

// ResetCost forgets the placements counted so far (the blocks recovery
// marked in use were found, not placed).
func (a *Allocator) ResetCost() { a.searchNs, a.placed = 0, 0 }

// Check recomputes the counters and indexes from the bitmap and describes
// the first that disagrees (the volume wraps it in vld.ErrCorrupt).
func (a *Allocator) Check() error {
	var free int64
	empty := 0
	cylFree := make([]int64, len(a.cylFree))
	cylEmpty := make([]int32, len(a.cylEmpty))
	for t := range a.trackFree {
		start := a.l.TrackStart(t)
		var f int32
		for b := start; b < start+int64(a.trackCap[t]); b++ {
			if !a.IsUsed(b) {
				f++
			}
		}
		if f != a.trackFree[t] {
			return fmt.Errorf("track %d: %d free blocks counted, %d recorded", t, f, a.trackFree[t])
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
		return fmt.Errorf("free %d/%d, empty tracks %d/%d (counted/recorded)", free, a.free, empty, a.empty)
	}
	for c := range cylFree {
		if cylFree[c] != a.cylFree[c] || cylEmpty[c] != a.cylEmpty[c] {
			return fmt.Errorf("cylinder %d: free %d/%d, empty %d/%d", c, cylFree[c], a.cylFree[c], cylEmpty[c], a.cylEmpty[c])
		}
		if set := a.emptyCyls[c>>6]&(1<<(uint(c)&63)) != 0; set != (cylEmpty[c] > 0) {
			return fmt.Errorf("cylinder %d: %d empty tracks, but the empty-cylinder set says %v", c, cylEmpty[c], set)
		}
	}
	return nil
}

// Free is the number of free blocks.
func (a *Allocator) Free() int64 { return a.free }

// FreeNow is Free for readers that do not hold the Volume's mu
// (Volume.MetaFreeBlocks): it is safe for concurrent use.
func (a *Allocator) FreeNow() int64 { return a.freeNow.Load() }

// EmptyTracks is the number of empty tracks (of at least one block).
func (a *Allocator) EmptyTracks() int { return a.empty }

// NumTracks is the number of tracks, as the layout counts them.
func (a *Allocator) NumTracks() int { return len(a.trackFree) }

// TrackFree is the number of free blocks on track t.
func (a *Allocator) TrackFree(t int) int32 { return a.trackFree[t] }

// TrackCap is the number of blocks on track t.
func (a *Allocator) TrackCap(t int) int32 { return a.trackCap[t] }

// Threshold is the fill fraction New was given (<= 0: greedy only).
func (a *Allocator) Threshold() float64 { return a.threshold }

// Active is the track being filled in threshold mode, or -1.
func (a *Allocator) Active() int { return a.active }

// SetActive makes t the track being filled (-1: none), as NoteWrite does:
// a mount forgets it, and a write that must not move it restores it.
func (a *Allocator) SetActive(t int) { a.active = t }

// AvoidEmpty reports whether searches keep out of empty tracks while a
// hole fits elsewhere.
func (a *Allocator) AvoidEmpty() bool { return a.avoidEmpty }

// SetAvoidEmpty makes searches prefer holes to empty tracks (greedy, no
// fill policy) while on, falling back to empty tracks only when no hole
// fits.
func (a *Allocator) SetAvoidEmpty(on bool) { a.avoidEmpty = on }

// Decisions is the number of placement decisions made.
func (a *Allocator) Decisions() int64 { return a.decisions }

// Cost is the time spent choosing places, in ns (sampled: see timeEvery),
// and the blocks taken, since New or ResetCost: their ratio is the CPU
// cost per block placed.
func (a *Allocator) Cost() (searchNs, placed int64) { return a.searchNs, a.placed }
