package alloc

import (
	"fmt"
	"math/bits"

	"github.com/vlfs/vlfs/vld/disk"
)

// phaseSlots divides a revolution for the phase index: a slot is 1/64 of
// a turn, and a cylinder's mask is one word.
const phaseSlots = 64

// The phase index prices a cylinder's tracks for a one-block write without
// pricing each (issue 32: on a disk 95 % full a decision priced the 16
// tracks of a cylinder, each a few free blocks, and cost 8-9x the empty
// disk's). In a cylinder every track but the head's own surface is reached
// after the same seek or head switch, so the cheapest of them is the free
// block whose start passes under the head first after that move: the
// first slot, in rotational order from the arrival, that holds a free
// block start on some track. Per cylinder one word says which slots may
// hold one.
//
// The masks are kept inverted, as "known to hold no free block start", so
// that a zero bit (maybe) is the safe default: freeing a block clears its
// slot's and surface's bits, taking one sets none, and a search that finds
// a slot or surface with no free block left sets its bit then. A volume
// opens with every bit zero, so the index costs no work and no resident
// memory until searches touch a cylinder (an untouched 1 TiB index is
// pages the kernel has not handed out); mounting marks blocks in use at no
// cost, and the first searches clean up.
//
// Only the tracks of the first slots reached are priced, exactly as
// before (firstRun), so the choice is the one the full scan makes
// (TestAllocatorMatchesOracle, TestPhaseIndexSameChoices).

// phaseSlot is the slot of the sector where a block starts.
func phaseSlot(sector, spt int64) uint { return uint(sector * phaseSlots / spt) }

// phaseRuns is the run lengths the phase index answers for: one block, and
// two (on a nearly full disk most of a multi-block write goes out as runs
// of two and one, and a run of two is rare enough that the exact search
// priced ten cylinders for it).
const phaseRuns = 2

// phaseIndex holds, per run length n (1..phaseRuns) and cylinder, a word
// of the slots known to hold no start of a free run of n blocks (noSlots)
// and, per slot, the surfaces known to hold none there (noSurfs).
type phaseIndex struct {
	noSlots [phaseRuns][]uint64
	noSurfs [phaseRuns][]uint16 // [cylinder*phaseSlots+slot]
}

// notePhaseFree clears the bits of the runs free block b on track t may
// start: b itself, and for runs of two b and the block before it.
func (a *Allocator) notePhaseFree(b int64, t int) {
	p := a.phase
	if p == nil {
		return
	}
	g := a.l.Track(t)
	c, surf := a.l.CylSurf(t)
	mayStart := func(n int, i int64) { // a run of n may start at block i
		s := phaseSlot(g.Sector(i), g.SectorsPerTrack())
		p.noSlots[n-1][c] &^= 1 << s
		p.noSurfs[n-1][c*phaseSlots+int(s)] &^= 1 << uint(surf)
	}
	i := b - g.Start
	mayStart(1, i)
	mayStart(2, i)
	if i > 0 {
		mayStart(2, i-1)
	}
}

// phaseUsable reports whether a search for n blocks in this mode may use
// the phase index: it knows nothing of windows, empty tracks or the fill
// rule, nor of runs longer than phaseRuns.
func (a *Allocator) phaseUsable(n int, w Window, fill bool) bool {
	nt := a.l.NumTracks()
	return a.phase != nil && n <= phaseRuns && !fill && (w.N == 0 || w.N >= nt)
}

// notEmptyIfAvoided is the track filter of a search outside fill mode:
// with avoidEmpty, empty tracks are passed over (bestInCylinder does the
// same).
func (a *Allocator) notEmptyIfAvoided(t int) bool {
	return !a.avoidEmpty || a.trackFree[t] != a.trackCap[t]
}

// freeInSlot reports whether track g (cap blocks) has a free run of n
// blocks whose first sector lies in slot s.
func (a *Allocator) freeInSlot(g disk.Track, cap int64, s uint, n int) bool {
	spt, spb := g.SectorsPerTrack(), g.SectorsPerBlock()
	lo := (int64(s)*spt + phaseSlots - 1) / phaseSlots
	hi := ((int64(s)+1)*spt + phaseSlots - 1) / phaseSlots
	rlo := ((lo-g.FirstSector())%spt + spt) % spt // relative to block 0's sector
	ranges := [2][2]int64{{rlo, min(rlo+hi-lo, spt)}, {0, max(rlo+hi-lo-spt, 0)}}
	for _, r := range ranges {
		for i := (r[0] + spb - 1) / spb; i+int64(n) <= cap && i*spb < r[1]; i++ {
			if !a.IsUsed(g.Start+i) && (n == 1 || a.FreeRun(g.Start+i, n)) {
				return true
			}
		}
	}
	return false
}

// bestInCylinderByPhase is bestInCylinder for a run of n <= phaseRuns
// blocks with no restriction: the head's own surface priced as before, the
// other surfaces through the phase index.
//
// ok filters the tracks priced (avoidEmpty's, or the compactor's hole
// filter); it does not touch the index, which says where free runs are.
func (a *Allocator) bestInCylinderByPhase(c int, h disk.Head, startMs float64, n int, best Choice, ok func(t int) bool) Choice {
	noSlots, noSurfs := a.phase.noSlots[n-1], a.phase.noSurfs[n-1]
	m := a.l.Model()
	nt := a.l.NumTracks()
	first := a.l.TrackOfCylSurf(c, 0)
	// better applies the full scan's order: a strictly cheaper block, or
	// as cheap and on a lower surface of this cylinder (the scan went
	// surface by surface and kept the first of equals).
	bestHere := false
	better := func(b int64, cost float64) bool {
		if cost < best.Cost {
			return true
		}
		return cost == best.Cost && bestHere && b < best.Block
	}
	price := func(t int, mech float64) {
		// As cheap as the best cannot win unless the best is on a higher
		// surface of this cylinder (a block the head is at: no wait).
		if mech > best.Cost || (mech == best.Cost && !bestHere) || !ok(t) {
			return // ok is the search's track filter, for the head's own track too
		}
		if b, wait := a.firstRun(t, startMs+mech, n); b >= 0 && better(b, mech+wait) {
			best, bestHere = Choice{Block: b, Cost: mech + wait}, true
		}
	}
	if t := first + h.Surf; h.Surf < m.Surfaces && t < nt && a.mayHold(t, n) {
		price(t, a.mechMs(h, c, h.Surf))
	}
	other := 0
	if h.Surf == 0 {
		other = 1
	}
	if other >= m.Surfaces || first+other >= nt {
		return best
	}
	mech := a.mechMs(h, c, other) // the same for every surface but the head's
	if mech > best.Cost || (mech == best.Cost && !bestHere) {
		return best
	}
	rot := a.l.RotationMs()
	arrive := frac((startMs + mech) / rot)
	// From the slot before the arrival's (a block starting a hair before
	// it counts as reached), in rotational order.
	s0 := (uint(arrive*phaseSlots) + phaseSlots - 1) % phaseSlots
	mask := bits.RotateLeft64(^noSlots[c], -int(s0))
	g0 := a.l.Track(first)
	var priced uint32 // surfaces priced
	for mask != 0 {
		k := uint(bits.TrailingZeros64(mask))
		mask &^= 1 << k
		s := (s0 + k) % phaseSlots
		if k >= 2 {
			// Every block of this slot and the later ones starts at least
			// this long after the arrival (none within the model's snap,
			// which would make its wait 0). Only later, not as late: a
			// block as cheap on a lower surface wins a tie.
			if d := frac(float64(s)/phaseSlots - arrive); d > disk.PhaseSnap+1e-9 {
				if mech+(d-1e-9)*rot > best.Cost {
					break
				}
			}
		}
		// The surfaces that may have a free block starting in slot s:
		// priced if they have one, their bit cleaned if not.
		cell := &noSurfs[c*phaseSlots+int(s)]
		for sm := ^*cell & a.surfMask; sm != 0; {
			surf := bits.TrailingZeros16(sm)
			sm &^= 1 << uint(surf)
			t := first + surf
			if t < nt && (surf == h.Surf || priced&(1<<uint(surf)) != 0 || !ok(t)) {
				// Priced already, or not to be priced here (the head's
				// own track, an empty track while avoiding them, a track
				// the compactor's filter refuses): no need to look, and
				// its bit stays as it is.
				continue
			}
			if t >= nt || !a.mayHold(t, n) || !a.freeInSlot(g0.Surface(surf), int64(a.trackCap[t]), s, n) {
				*cell |= 1 << uint(surf)
				continue
			}
			priced |= 1 << uint(surf)
			price(t, mech)
		}
		if ^*cell&a.surfMask == 0 {
			noSlots[c] |= 1 << s
		}
	}
	return best
}

// newPhaseIndex makes an index that knows nothing yet (every bit zero:
// any slot may hold a free run). A disk of more than 16 surfaces scans as
// before.
func newPhaseIndex(l *disk.Layout) *phaseIndex {
	if l.Model().Surfaces > 16 {
		return nil
	}
	nc := l.NumCylinders()
	p := &phaseIndex{}
	for n := range phaseRuns {
		p.noSlots[n] = make([]uint64, nc)
		p.noSurfs[n] = make([]uint16, nc*phaseSlots)
	}
	return p
}

// checkPhase verifies the masks are a superset: the start of every free
// run of n blocks (n <= phaseRuns) has its slot and surface bits clear.
func (a *Allocator) checkPhase() error {
	if a.phase == nil {
		return nil
	}
	for t := 0; t < a.l.NumTracks(); t++ {
		if a.trackFree[t] == 0 {
			continue
		}
		g := a.l.Track(t)
		c, surf := a.l.CylSurf(t)
		for i := int64(0); i < int64(a.trackCap[t]); i++ {
			sl := phaseSlot(g.Sector(i), g.SectorsPerTrack())
			for n := 1; n <= phaseRuns && i+int64(n) <= int64(a.trackCap[t]); n++ {
				if !a.FreeRun(g.Start+i, n) {
					break
				}
				if a.phase.noSlots[n-1][c]&(1<<sl) != 0 || a.phase.noSurfs[n-1][c*phaseSlots+int(sl)]&(1<<uint(surf)) != 0 {
					return fmt.Errorf("track %d: a free run of %d at block %d starts in phase slot %d, which the index says holds none", t, n, g.Start+i, sl)
				}
			}
		}
	}
	return nil
}
