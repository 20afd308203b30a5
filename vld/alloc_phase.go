package vld

import (
	"fmt"
	"math"
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
// The masks are a superset: freeing a block sets its slot's bit, taking
// one clears nothing, and a search that finds a slot with no free block
// left clears its bit then. A volume opens with every bit set; mounting
// marks blocks in use at no cost, and the first searches clean up.
//
// Only the tracks of the first slots reached are priced, exactly as
// before (firstRun), so the choice is the one the full scan makes
// (TestAllocatorMatchesOracle, TestPhaseIndexSameChoices).

// phaseSlot is the slot of the sector where a block starts.
func phaseSlot(sector, spt int64) uint { return uint(sector * phaseSlots / spt) }

// phaseIndex holds, per cylinder, a word of slots that may hold a free
// block start (slots) and, per slot, the surfaces that may (surfs).
type phaseIndex struct {
	slots []uint64
	surfs []uint16 // [cylinder*phaseSlots+slot]
}

// notePhaseFree sets the bits of free block b on track t.
func (a *allocator) notePhaseFree(b int64, t int) {
	p := a.phase
	if p == nil {
		return
	}
	g := a.l.Track(t)
	c, surf := a.l.CylSurf(t)
	s := phaseSlot(g.Sector(b-g.Start), g.SectorsPerTrack())
	p.slots[c] |= 1 << s
	p.surfs[c*phaseSlots+int(s)] |= 1 << uint(surf)
}

// phaseUsable reports whether a one-block search in this mode may use the
// phase index: it knows nothing of windows, empty tracks or the fill rule.
func (a *allocator) phaseUsable(n int, w window, fill bool) bool {
	nt := a.l.NumTracks()
	return a.phase != nil && n == 1 && !fill && !a.avoidEmpty && (w.n == 0 || w.n >= nt)
}

// freeInSlot reports whether track g (cap blocks) has a free block whose
// first sector lies in slot s.
func (a *allocator) freeInSlot(g disk.Track, cap int64, s uint) bool {
	spt, spb := g.SectorsPerTrack(), g.SectorsPerBlock()
	lo := (int64(s)*spt + phaseSlots - 1) / phaseSlots
	hi := ((int64(s)+1)*spt + phaseSlots - 1) / phaseSlots
	rlo := ((lo-g.FirstSector())%spt + spt) % spt // relative to block 0's sector
	ranges := [2][2]int64{{rlo, min(rlo+hi-lo, spt)}, {0, max(rlo+hi-lo-spt, 0)}}
	for _, r := range ranges {
		for i := (r[0] + spb - 1) / spb; i < cap && i*spb < r[1]; i++ {
			if !a.isUsed(g.Start + i) {
				return true
			}
		}
	}
	return false
}

// bestInCylinderByPhase is bestInCylinder for a one-block write with no
// restriction: the head's own surface priced as before, the other
// surfaces through the phase index.
func (a *allocator) bestInCylinderByPhase(c int, h disk.Head, startMs float64, best choice) choice {
	m := a.l.Model()
	nt := a.l.NumTracks()
	first := a.l.TrackOfCylSurf(c, 0)
	// better applies the full scan's order: a strictly cheaper block, or
	// as cheap and on a lower surface of this cylinder (the scan went
	// surface by surface and kept the first of equals).
	bestHere := false
	better := func(b int64, cost float64) bool {
		if cost < best.cost {
			return true
		}
		return cost == best.cost && bestHere && b < best.block
	}
	price := func(t int, mech float64) {
		if mech >= best.cost {
			return
		}
		if b, wait := a.firstRun(t, startMs+mech, 1); b >= 0 && better(b, mech+wait) {
			best, bestHere = choice{block: b, cost: mech + wait}, true
		}
	}
	if t := first + h.Surf; h.Surf < m.Surfaces && t < nt && a.trackFree[t] > 0 {
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
	if mech >= best.cost {
		return best
	}
	rot := a.l.RotationMs()
	arrive := frac((startMs + mech) / rot)
	// From the slot before the arrival's (a block starting a hair before
	// it counts as reached), in rotational order.
	s0 := (uint(arrive*phaseSlots) + phaseSlots - 1) % phaseSlots
	mask := bits.RotateLeft64(a.phase.slots[c], -int(s0))
	g0 := a.l.Track(first)
	var priced uint32 // surfaces priced
	for mask != 0 {
		k := uint(bits.TrailingZeros64(mask))
		mask &^= 1 << k
		s := (s0 + k) % phaseSlots
		if k >= 2 {
			// Every block of this slot and the later ones starts at least
			// this long after the arrival.
			lb := (frac(float64(s)/phaseSlots-arrive) - 1e-9) * rot
			if mech+lb >= best.cost {
				break
			}
		}
		// The surfaces that may have a free block starting in slot s:
		// priced if they have one, their bit cleaned if not.
		cell := &a.phase.surfs[c*phaseSlots+int(s)]
		for sm := *cell; sm != 0; {
			surf := bits.TrailingZeros16(sm)
			sm &^= 1 << uint(surf)
			t := first + surf
			if t >= nt || a.trackFree[t] == 0 || !a.freeInSlot(g0.Surface(surf), int64(a.trackCap[t]), s) {
				*cell &^= 1 << uint(surf)
				continue
			}
			if surf != h.Surf && priced&(1<<uint(surf)) == 0 {
				priced |= 1 << uint(surf)
				price(t, mech)
			}
		}
		if *cell == 0 {
			a.phase.slots[c] &^= 1 << s
		}
	}
	return best
}

// newPhaseIndex sets every bit: a superset is always right, and the
// searches clean it. A disk of more than 16 surfaces scans as before.
func newPhaseIndex(l *disk.Layout) *phaseIndex {
	if l.Model().Surfaces > 16 {
		return nil
	}
	nc := l.NumCylinders()
	p := &phaseIndex{slots: make([]uint64, nc), surfs: make([]uint16, nc*phaseSlots)}
	all := uint16(1<<uint(l.Model().Surfaces) - 1)
	for i := range p.slots {
		p.slots[i] = math.MaxUint64
	}
	for i := range p.surfs {
		p.surfs[i] = all
	}
	return p
}

// checkPhase verifies the masks are a superset: every free block's slot
// bit is set.
func (a *allocator) checkPhase() error {
	if a.phase == nil {
		return nil
	}
	for t := 0; t < a.l.NumTracks(); t++ {
		if a.trackFree[t] == 0 {
			continue
		}
		g := a.l.Track(t)
		c, _ := a.l.CylSurf(t)
		for i := int64(0); i < int64(a.trackCap[t]); i++ {
			sl := phaseSlot(g.Sector(i), g.SectorsPerTrack())
			_, surf := a.l.CylSurf(t)
			if a.isUsed(g.Start+i) || (a.phase.slots[c]&(1<<sl) != 0 && a.phase.surfs[c*phaseSlots+int(sl)]&(1<<uint(surf)) != 0) {
				continue
			}
			return fmt.Errorf("track %d: free block %d starts in phase slot %d, which the index says holds none: %w", t, g.Start+i, phaseSlot(g.Sector(i), g.SectorsPerTrack()), ErrCorrupt)
		}
	}
	return nil
}
