package vld

import (
	"math"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// Range placement under either head model. With the simulated (oracle)
// head, HRS over the geometry picks the start the head reaches first. A
// profiled head cannot see the geometry or the head (head_profile.go): it
// prices every start inside the ranges by the profile's row for the think
// time, by its skip from the end of the last request, and takes the
// cheapest; a start outside the profiled skips (behind the last request,
// or too far ahead) is priced as a write with no knowledge of the phase.
// Either way the choice stays inside the ranges the file system gave.

// chooseInRangesLocked picks a start of k blocks inside ext (free runs of
// at least k blocks, each on one track) for a write issued at startMs with
// the head at h. It returns the start and its predicted positioning cost.
func (v *Volume) chooseInRangesLocked(ext []Extent, k int, h disk.Head, startMs float64) (int64, float64, bool) {
	ph, ok := v.head.(*profiledHead)
	if !ok {
		t, err := rangedisk.Choose(v.layout, h, startMs, rangedisk.List(ext...), k, 1)
		if err != nil {
			return 0, 0, false
		}
		return t.Addr, t.PositionMs, true
	}
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

// exactCostLocked is the predicted positioning cost of a write of k blocks
// at b issued at startMs, by the volume's head model (a profiled head also
// notes the run as planned, so the chain's next part is priced from its
// end).
func (v *Volume) exactCostLocked(b int64, k int, h disk.Head, startMs float64) float64 {
	ph, ok := v.head.(*profiledHead)
	if !ok {
		return v.layout.PositionMs(h, startMs, b, true)
	}
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
