package vld

import (
	"math"

	"github.com/vlfs/vlfs/vld/disk"
)

// window restricts a search to tracks [start, start+n) modulo the number of
// tracks, and the tracks marked in extra (nil: none). The zero window
// (n == 0) means no restriction.
type window struct {
	start, n  int
	extra     []bool
	extraCyls []int // the cylinders of the extra tracks, sorted (nil: none)
}

// mayPlace reports whether a run may go on track t inside w: anywhere in
// the window proper, but on an extra track only while the fill policy may
// fill it (empty, or the active track below the threshold). Entries then
// follow a burst's data onto the empty tracks listed, and do not scatter
// into the holes of tracks listed only because the compactor will empty
// them next, which would spread holes over the disk (log_tracks.go).
func (a *allocator) mayPlace(w window, t int) bool {
	nt := a.l.NumTracks()
	if w.n == 0 || w.n >= nt || (window{start: w.start, n: w.n}).contains(t, nt) {
		return true
	}
	return w.extra != nil && w.extra[t] && a.fillable(t)
}

func (w window) contains(t, ntracks int) bool {
	if w.n == 0 || w.n >= ntracks {
		return true
	}
	if w.extra != nil && w.extra[t] {
		return true
	}
	return (t-w.start+ntracks)%ntracks < w.n
}

// choice is a candidate placement: first block and its estimated
// positioning time (seek/switch plus rotational wait), in simulated ms.
type choice struct {
	block int64
	cost  float64
}

var noChoice = choice{block: -1, cost: math.Inf(1)}

// choose picks where a run of n blocks should start when positioning begins
// at startMs with the head at h: the free run reachable soonest. It searches
// the head's cylinder, then cylinders further on in one direction, stopping
// as soon as the seek alone costs more than the best found; it wraps to the
// first cylinder only if nothing lies ahead (section 4.2 of the paper).
// While empty tracks exist and a fill threshold is set, writes stay on the
// active track until it reaches the threshold, and only then move to the
// empty track reached soonest (section 2.3: a track is left only when m
// free blocks remain). Taking whichever of the two is reached sooner would
// scatter writes over many empty tracks a few blocks each and use them up.
func (a *allocator) choose(h disk.Head, startMs float64, n int, w window) choice {
	a.decisions++
	defer a.timed(a.startTimer())
	if a.avoidEmpty {
		if c := a.search(h, startMs, n, w, false); c.block >= 0 {
			return c
		}
		a.avoidEmpty = false
		defer func() { a.avoidEmpty = true }()
	}
	if a.threshold > 0 && a.empty > 0 {
		if c := a.onActive(h, startMs, n, w); c.block >= 0 {
			return c
		}
		if c := a.search(h, startMs, n, w, true); c.block >= 0 {
			return c
		}
	}
	return a.search(h, startMs, n, w, false)
}

// onActive places a run of n blocks on the active track, if it is below
// the threshold, inside w, and has such a run.
func (a *allocator) onActive(h disk.Head, startMs float64, n int, w window) choice {
	t := a.active
	if t < 0 || a.trackFree[t] == a.trackCap[t] || !a.fillable(t) || a.trackFree[t] < int32(n) || !a.mayPlace(w, t) {
		return noChoice
	}
	cyl, surf := a.l.CylSurf(t)
	mech := a.mechMs(h, cyl, surf)
	b, wait := a.firstRun(t, startMs+mech, n)
	if b < 0 {
		return noChoice
	}
	return choice{block: b, cost: mech + wait}
}

func (a *allocator) search(h disk.Head, startMs float64, n int, w window, fill bool) choice {
	best := noChoice
	// Only cylinders that may take the write are priced (nextCandidate):
	// the others are skipped.
	for c := a.nextCandidate(h.Cyl, n, w, fill); c >= 0; c = a.nextCandidate(c+1, n, w, fill) {
		if c > h.Cyl && a.seekBound(c-h.Cyl) >= best.cost {
			return best
		}
		best = a.bestInCylinder(c, h, startMs, n, w, fill, best)
	}
	if best.block >= 0 {
		return best
	}
	// Nothing ahead: the sweep starts again at the first cylinder.
	for c := a.nextCandidate(0, n, w, fill); c >= 0 && c < h.Cyl; c = a.nextCandidate(c+1, n, w, fill) {
		if best = a.bestInCylinder(c, h, startMs, n, w, fill, best); best.block >= 0 {
			return best
		}
	}
	return best
}

// seekBound is a lower bound of the positioning time to a cylinder d away.
func (a *allocator) seekBound(d int) float64 {
	m := a.l.Model()
	return m.SeekMs(d)
}

func (a *allocator) bestInCylinder(c int, h disk.Head, startMs float64, n int, w window, fill bool, best choice) choice {
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
		if t < 0 || t >= nt || !a.mayHold(t, n) || !a.mayPlace(w, t) {
			continue
		}
		if !fill && a.avoidEmpty && a.trackFree[t] == a.trackCap[t] {
			continue
		}
		if fill && !a.fillable(t) {
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
		if mech >= best.cost {
			continue
		}
		b, wait := a.firstRun(t, startMs+mech, n)
		if b >= 0 && mech+wait < best.cost {
			best = choice{block: b, cost: mech + wait}
		}
	}
	return best
}

func (a *allocator) activeCyl() int {
	c, _ := a.l.CylSurf(a.active)
	return c
}

// fillable reports whether track t may take a write in threshold mode: it is
// empty, or it is the active track and still below the threshold.
func (a *allocator) fillable(t int) bool {
	if a.trackFree[t] == a.trackCap[t] {
		return true
	}
	if t != a.active {
		return false
	}
	used := float64(a.trackCap[t] - a.trackFree[t])
	return used < a.threshold*float64(a.trackCap[t])
}

// noteWrite updates the active track after a write landed on track t.
func (a *allocator) noteWrite(t int) {
	if a.threshold > 0 {
		a.active = t
	}
}

// mechMs is the seek or head-switch time (plus write settle) from h to
// (cyl, surf), before any rotational wait.
func (a *allocator) mechMs(h disk.Head, cyl, surf int) float64 {
	return a.l.MoveMs(h, a.l.TrackOfCylSurf(cyl, surf), true)
}

// firstRun finds, on track t, the first run of n free blocks whose start
// passes under the head at or after time arriveMs, and the rotational wait
// until it does (ms). Runs do not wrap past the track's last block.
func (a *allocator) firstRun(t int, arriveMs float64, n int) (int64, float64) {
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
func (a *allocator) runFrom(from, to int64, n int) int64 {
	for b := a.nextFree(from, to); b >= 0 && b+int64(n) <= to; {
		u := int64(-1)
		if n > 1 {
			u = a.nextUsed(b+1, b+int64(n))
		}
		if u < 0 {
			return b
		}
		// No run of n starts before the used block: skip past it.
		b = a.nextFree(u+1, to)
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
