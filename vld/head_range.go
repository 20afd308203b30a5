package vld

import (
	"math"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// Range placement (vld/place/range.go) under either head model: the head
// models' side of place.Head. With the simulated (oracle) head, HRS over
// the geometry picks the start the head reaches first. A profiled head
// cannot see the geometry or the head (head_profile.go): it
// prices every start inside the ranges by the profile's row for the think
// time, by its skip from the end of the last request, and takes the
// cheapest; a start outside the profiled skips (behind the last request,
// or too far ahead) is priced as a write with no knowledge of the phase.
// Either way the choice stays inside the ranges the file system gave.

// ChooseInRanges picks, for the simulated head, the start of k blocks
// inside ext (free runs of at least k blocks, each on one track) that the
// head at h reaches first for a write issued at startMs (HRS), and its
// predicted positioning cost.
func (s simulatedHead) ChooseInRanges(ext []Extent, k int, h disk.Head, startMs float64) (int64, float64, bool) {
	t, err := rangedisk.Choose(s.m.l, h, startMs, rangedisk.List(ext...), k, 1)
	if err != nil {
		return 0, 0, false
	}
	return t.Addr, t.PositionMs, true
}

// ChooseInRanges picks, for the profiled head, the start of k blocks
// inside ext the profile prices lowest for a write issued at startMs, and
// its predicted positioning cost. The head position is not known to it.
func (ph *profiledHead) ChooseInRanges(ext []Extent, k int, _ disk.Head, startMs float64) (int64, float64, bool) {
	anchor, row := ph.rowFor(startMs)
	blind := ph.blindMs()
	best, bestMs := int64(-1), math.Inf(1)
	for _, e := range ext {
		for b := e.Begin; b+int64(k) <= e.End; b++ {
			if ms := profiledCost(row, anchor, b, blind); ms < bestMs {
				best, bestMs = b, ms
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	ph.plan = plannedRun{valid: true, seq: ph.m.last.seq, startMs: startMs, end: best + int64(k)}
	return best, bestMs - ph.floor, true
}

// RunCost is the simulated head's positioning cost of a write of k blocks
// at b issued at startMs with the head at h.
func (s simulatedHead) RunCost(b int64, _ int, h disk.Head, startMs float64) float64 {
	return s.m.l.PositionMs(h, startMs, b, true)
}

// RunCost is the profiled head's predicted positioning cost of a write of
// k blocks at b issued at startMs; it also notes the run as planned, so
// the chain's next part is priced from its end.
func (ph *profiledHead) RunCost(b int64, k int, _ disk.Head, startMs float64) float64 {
	anchor, row := ph.rowFor(startMs)
	ms := profiledCost(row, anchor, b, ph.blindMs())
	ph.plan = plannedRun{valid: true, seq: ph.m.last.seq, startMs: startMs, end: b + int64(k)}
	return ms - ph.floor
}

// rowFor is the skip anchor and the profile row of a write issued at
// startMs, as choose looks them up.
func (ph *profiledHead) rowFor(startMs float64) (int64, []float64) {
	anchor, think := ph.anchor(startMs)
	if i := ph.p.Grid.ThinkIndex(think); i >= 0 {
		return anchor, ph.table[i]
	}
	return anchor, ph.blind
}

// blindMs is the mean cost over every profiled skip and think time.
func (ph *profiledHead) blindMs() float64 {
	var sum float64
	for _, c := range ph.blind {
		sum += c
	}
	return sum / float64(len(ph.blind))
}

// profiledCost is row's cost of a write at b, skip b-anchor, or blind
// outside the row.
func profiledCost(row []float64, anchor, b int64, blind float64) float64 {
	if s := b - anchor; s >= 0 && s < int64(len(row)) {
		return row[s]
	}
	return blind
}
