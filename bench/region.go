package bench

import (
	"math"
	"math/rand"

	"github.com/vlfs/vlfs/vld/disk"
)

// region is a prefix of a disk layout whose blocks (the allocation units
// of an experiment) are marked used or free.
type region struct {
	l    *disk.Layout
	used []bool
}

func newRegion(l *disk.Layout) *region {
	return &region{l: l, used: make([]bool, l.NumBlocks())}
}

// fill marks exactly round(u*N) units used, chosen uniformly at random
// (a partial Fisher-Yates shuffle), and the rest free.
func (r *region) fill(rng *rand.Rand, u float64) {
	n := len(r.used)
	k := int(math.Round(u * float64(n)))
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
		r.used[i] = false
	}
	for i := 0; i < k; i++ {
		j := i + rng.Intn(n-i)
		perm[i], perm[j] = perm[j], perm[i]
		r.used[perm[i]] = true
	}
}

// nextFree returns the index on track t of the first free unit at or after
// index from in rotational (cyclic) order, or -1 if the track is full.
func (r *region) nextFree(t, from int) int {
	start := r.l.TrackStart(t)
	nb := r.l.TrackBlocks(t)
	for i := range nb {
		j := (from + i) % nb
		if !r.used[start+int64(j)] {
			return j
		}
	}
	return -1
}

// firstIndexAfter returns the index of the first unit of track t whose
// start is at or after the platter phase at time tMs, in rotational order;
// nb when the head is in the unused gap after the last unit (the next unit
// is then unit 0). Floating-point error can make it one too large, which
// callers allow for by starting their scan one unit earlier.
func (r *region) firstIndexAfter(t int, tMs float64) int {
	l := r.l
	rel := l.PhaseAt(tMs) - l.BlockPhase(l.TrackStart(t))
	rel -= math.Floor(rel)
	step := float64(l.BlockSize()/disk.SectorSize) / float64(sectorsPerTrack(l, t)) // one unit, in turns
	return min(int(math.Ceil(rel/step)), l.TrackBlocks(t))
}

// sectorsPerTrack is the sector count of track t's zone.
func sectorsPerTrack(l *disk.Layout, t int) int {
	cyl, _ := l.CylSurf(t)
	m := l.Model()
	return m.Zones[m.ZoneOf(cyl)].SectorsPerTrack
}

// bestOnTrack is the cheapest PositionMs from head h at startMs to a free
// unit of track t, or +Inf if the track is full. Rotational order from
// the arrival time decides: the first free unit at or after the arrival
// is the cheapest. Two candidates are priced with PositionMs (the first
// free unit from one index early, and the next free one) so that rounding
// in firstIndexAfter can never pick a unit a revolution away.
func (r *region) bestOnTrack(h disk.Head, startMs float64, t int, write bool) float64 {
	arrive := startMs + r.l.MoveMs(h, t, write)
	nb := r.l.TrackBlocks(t)
	j := (r.firstIndexAfter(t, arrive) - 1 + nb) % nb
	f1 := r.nextFree(t, j)
	if f1 < 0 {
		return math.Inf(1)
	}
	base := r.l.TrackStart(t)
	best := r.l.PositionMs(h, startMs, base+int64(f1), write)
	if f2 := r.nextFree(t, (f1+1)%nb); f2 != f1 {
		best = math.Min(best, r.l.PositionMs(h, startMs, base+int64(f2), write))
	}
	return best
}
