package alloc

import "github.com/vlfs/vlfs/vld/disk"

// holeFilter says which tracks a hole-plugging write may use: tracks that
// already hold data (never an empty track: making empty tracks is the
// point of compaction), other than Avoid (the track being emptied; -1:
// none), with at most MaxFree free blocks when MaxFree > 0 (so a compactor
// never fills a track it would rather empty next).
type HoleFilter struct {
	Avoid   int
	MaxFree int32
}

func (a *Allocator) holeOK(t int, f HoleFilter) bool {
	free := a.trackFree[t]
	if free == 0 || free == a.trackCap[t] || t == f.Avoid {
		return false
	}
	return f.MaxFree <= 0 || free <= f.MaxFree
}

// ChooseHole picks the single free block the head reaches soonest among
// the tracks f allows, with the same one-way cylinder sweep as search
// (section 4.2: it wraps to cylinder 0 only when nothing lies ahead). It
// ignores the fill threshold: holes are what it is for.
func (a *Allocator) ChooseHole(h disk.Head, startMs float64, f HoleFilter) Choice {
	defer a.EndDecision(a.StartDecision())
	best := NoChoice
	for c := a.nextCyl(h.Cyl, 1); c >= 0; c = a.nextCyl(c+1, 1) {
		if c > h.Cyl && a.seekBound(c-h.Cyl) >= best.Cost {
			return best
		}
		best = a.bestHoleInCylinder(c, h, startMs, f, best)
	}
	for c := a.nextCyl(0, 1); c >= 0 && c < h.Cyl && best.Block < 0; c = a.nextCyl(c+1, 1) {
		best = a.bestHoleInCylinder(c, h, startMs, f, best)
	}
	return best
}

func (a *Allocator) bestHoleInCylinder(c int, h disk.Head, startMs float64, f HoleFilter, best Choice) Choice {
	if a.cylFree[c] == 0 {
		return best
	}
	if a.phase != nil {
		return a.bestInCylinderByPhase(c, h, startMs, 1, best, func(t int) bool { return a.holeOK(t, f) })
	}
	nt := a.l.NumTracks()
	for s := 0; s < a.l.Model().Surfaces; s++ {
		t := a.l.TrackOfCylSurf(c, s)
		if t < 0 || t >= nt || !a.holeOK(t, f) {
			continue
		}
		mech := a.mechMs(h, c, s)
		if mech >= best.Cost {
			continue
		}
		b, wait := a.firstRun(t, startMs+mech, 1)
		if b >= 0 && mech+wait < best.Cost {
			best = Choice{Block: b, Cost: mech + wait}
		}
	}
	return best
}
