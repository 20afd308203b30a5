package alloc

import (
	"math"
	"slices"

	"github.com/vlfs/vlfs/vld/disk"
)

// Window restricts a search to tracks [Start, Start+N) modulo the number
// of tracks, and the tracks marked in Extra (nil: none). The zero Window
// (N == 0) means no restriction. The volume's log window is one: log
// entries go only to its range and its extra tracks.
type Window struct {
	Start, N  int
	Extra     []bool // indexed by track
	ExtraCyls []int  // the cylinders of the extra tracks, sorted (nil: none)
}

// ExtraCylinders lists the cylinders of the extra tracks, sorted and
// unique, for Window.ExtraCyls.
func ExtraCylinders(extra []uint32, surfaces int) []int {
	if len(extra) == 0 {
		return nil
	}
	cs := make([]int, len(extra))
	for i, t := range extra {
		cs[i] = int(t) / surfaces
	}
	slices.Sort(cs)
	return slices.Compact(cs)
}

// MayPlace reports whether a run may go on track t inside w: anywhere in
// the window proper, but on an extra track only while the fill policy may
// fill it (empty, or the active track below the threshold). Entries then
// follow a burst's data onto the empty tracks listed, and do not scatter
// into the holes of tracks listed only because the compactor will empty
// them next, which would spread holes over the disk (vld's log_tracks.go).
func (a *Allocator) MayPlace(w Window, t int) bool {
	nt := a.l.NumTracks()
	if w.N == 0 || w.N >= nt || (Window{Start: w.Start, N: w.N}).Contains(t, nt) {
		return true
	}
	return w.Extra != nil && w.Extra[t] && a.Fillable(t)
}

// Contains reports whether track t (of ntracks) lies in w: in its range
// or among its extra tracks. A zero or whole-disk window holds every track.
func (w Window) Contains(t, ntracks int) bool {
	if w.N == 0 || w.N >= ntracks {
		return true
	}
	if w.Extra != nil && w.Extra[t] {
		return true
	}
	return (t-w.Start+ntracks)%ntracks < w.N
}

// Choice is a candidate placement: first block and its estimated
// positioning time (seek/switch plus rotational wait), in simulated ms.
// Block is -1 when nothing fits.
type Choice struct {
	Block int64
	Cost  float64
}

// NoChoice is the choice of a search that found nothing.
var NoChoice = Choice{Block: -1, Cost: math.Inf(1)}

// Choose picks where a run of n blocks should start when positioning begins
// at startMs with the head at h: the free run reachable soonest. It searches
// the head's cylinder, then cylinders further on in one direction, stopping
// as soon as the seek alone costs more than the best found; it wraps to the
// first cylinder only if nothing lies ahead (section 4.2 of the paper).
// While empty tracks exist and a fill threshold is set, writes stay on the
// active track until it reaches the threshold, and only then move to the
// empty track reached soonest (section 2.3: a track is left only when m
// free blocks remain). Taking whichever of the two is reached sooner would
// scatter writes over many empty tracks a few blocks each and use them up.
func (a *Allocator) Choose(h disk.Head, startMs float64, n int, w Window) Choice {
	defer a.EndDecision(a.StartDecision())
	if a.avoidEmpty {
		if c := a.search(h, startMs, n, w, false); c.Block >= 0 {
			return c
		}
		a.avoidEmpty = false
		defer func() { a.avoidEmpty = true }()
	}
	if a.threshold > 0 && a.empty > 0 {
		if c := a.onActive(h, startMs, n, w); c.Block >= 0 {
			return c
		}
		if c := a.search(h, startMs, n, w, true); c.Block >= 0 {
			return c
		}
	}
	return a.search(h, startMs, n, w, false)
}

// onActive places a run of n blocks on the active track, if it is below
// the threshold, inside w, and has such a run.
func (a *Allocator) onActive(h disk.Head, startMs float64, n int, w Window) Choice {
	t := a.active
	if t < 0 || a.trackFree[t] == a.trackCap[t] || !a.Fillable(t) || a.trackFree[t] < int32(n) || !a.MayPlace(w, t) {
		return NoChoice
	}
	cyl, surf := a.l.CylSurf(t)
	mech := a.mechMs(h, cyl, surf)
	b, wait := a.firstRun(t, startMs+mech, n)
	if b < 0 {
		return NoChoice
	}
	return Choice{Block: b, Cost: mech + wait}
}

func (a *Allocator) search(h disk.Head, startMs float64, n int, w Window, fill bool) Choice {
	best := NoChoice
	// Only cylinders that may take the write are priced (nextCandidate):
	// the others are skipped.
	for c := a.nextCandidate(h.Cyl, n, w, fill); c >= 0; c = a.nextCandidate(c+1, n, w, fill) {
		if c > h.Cyl && a.seekBound(c-h.Cyl) >= best.Cost {
			return best
		}
		best = a.bestInCylinder(c, h, startMs, n, w, fill, best)
	}
	if best.Block >= 0 {
		return best
	}
	// Nothing ahead: the sweep starts again at the first cylinder.
	for c := a.nextCandidate(0, n, w, fill); c >= 0 && c < h.Cyl; c = a.nextCandidate(c+1, n, w, fill) {
		if best = a.bestInCylinder(c, h, startMs, n, w, fill, best); best.Block >= 0 {
			return best
		}
	}
	return best
}

// seekBound is a lower bound of the positioning time to a cylinder d away.
func (a *Allocator) seekBound(d int) float64 {
	m := a.l.Model()
	return m.SeekMs(d)
}

func (a *Allocator) bestInCylinder(c int, h disk.Head, startMs float64, n int, w Window, fill bool, best Choice) Choice {
	if fill {
		if a.cylEmpty[c] == 0 && (a.active < 0 || a.activeCyl() != c) {
			return best
		}
	} else if a.cylFree[c] < int64(n) {
		return best
	}
	if a.phaseUsable(n, w, fill) {
		return a.bestInCylinderByPhase(c, h, startMs, n, best, a.notEmptyIfAvoided)
	}
	m := a.l.Model()
	nt := a.l.NumTracks()
	// The move costs the same to every surface but the head's own
	// (moveMs): priced once each, not per track.
	mechOwn, mechOther := -1.0, -1.0
	for s := 0; s < m.Surfaces; s++ {
		t := a.l.TrackOfCylSurf(c, s)
		if t < 0 || t >= nt || !a.mayHold(t, n) || !a.MayPlace(w, t) {
			continue
		}
		if !fill && a.avoidEmpty && a.trackFree[t] == a.trackCap[t] {
			continue
		}
		if fill && !a.Fillable(t) {
			continue
		}
		var mech float64
		switch {
		case s == h.Surf && mechOwn >= 0:
			mech = mechOwn
		case s != h.Surf && mechOther >= 0:
			mech = mechOther
		case s == h.Surf:
			mech = a.mechMs(h, c, s)
			mechOwn = mech
		default:
			mech = a.mechMs(h, c, s)
			mechOther = mech
		}
		if mech >= best.Cost {
			continue
		}
		b, wait := a.firstRun(t, startMs+mech, n)
		if b >= 0 && mech+wait < best.Cost {
			best = Choice{Block: b, Cost: mech + wait}
		}
	}
	return best
}

func (a *Allocator) activeCyl() int {
	c, _ := a.l.CylSurf(a.active)
	return c
}

// Fillable reports whether track t may take a write in threshold mode: it is
// empty, or it is the active track and still below the threshold.
func (a *Allocator) Fillable(t int) bool {
	if a.trackFree[t] == a.trackCap[t] {
		return true
	}
	if t != a.active {
		return false
	}
	used := float64(a.trackCap[t] - a.trackFree[t])
	return used < a.threshold*float64(a.trackCap[t])
}

// NoteWrite updates the active track after a write landed on track t.
func (a *Allocator) NoteWrite(t int) {
	if a.threshold > 0 {
		a.active = t
	}
}

// mechMs is the seek or head-switch time (plus write settle) from h to
// (cyl, surf), before any rotational wait.
func (a *Allocator) mechMs(h disk.Head, cyl, surf int) float64 {
	return a.l.MoveMs(h, a.l.TrackOfCylSurf(cyl, surf), true)
}

// firstRun finds, on track t, the first run of n free blocks whose start
// passes under the head at or after time arriveMs, and the rotational wait
// until it does (ms). Runs do not wrap past the track's last block.
func (a *Allocator) firstRun(t int, arriveMs float64, n int) (int64, float64) {
	g := a.l.Track(t)
	start := g.Start
	nb := int64(a.trackCap[t])
	rot := a.l.RotationMs()
	bf := g.BlockMs / rot
	arrive := frac(arriveMs / rot)
	rel := frac(arrive - g.Phase(0))
	// The first block whose start the head has not passed, by the model's
	// own snap: a start a hair behind the head counts as reached now
	// (disk.RotWaitMs); a tighter test priced it a turn away.
	k := int64(math.Ceil((rel - disk.PhaseSnap) / bf))
	if k < 0 || k >= nb {
		k = 0
	}
	b := a.runFrom(start+k, start+nb, n)
	if b < 0 {
		end := start + k + int64(n) - 1
		if end > start+nb {
			end = start + nb
		}
		b = a.runFrom(start, end, n)
	}
	if b < 0 {
		return -1, 0
	}
	return b, a.l.RotWaitMs(g.Phase(b-start) - arrive)
}

// runFrom returns the first b in [from, to) with [b, b+n) free and b+n <= to
// or the end of the track, whichever the caller passed as to.
func (a *Allocator) runFrom(from, to int64, n int) int64 {
	for b := a.NextFree(from, to); b >= 0 && b+int64(n) <= to; {
		u := int64(-1)
		if n > 1 {
			u = a.NextUsed(b+1, b+int64(n))
		}
		if u < 0 {
			return b
		}
		// No run of n starts before the used block: skip past it.
		b = a.NextFree(u+1, to)
	}
	return -1
}

func frac(x float64) float64 {
	f := x - math.Floor(x)
	if f >= 1 {
		return 0
	}
	return f
}
