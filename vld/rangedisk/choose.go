package rangedisk

import (
	"fmt"
	"math"

	"github.com/vlfs/vlfs/vld/disk"
)

// Target is where a range write would go and what reaching it costs.
type Target struct {
	Addr       int64   // first block
	PositionMs float64 // seek + switch + settle + rotation from startMs
	Estimates  int     // service-time estimates HRS made
}

// Choose runs hierarchical-range scheduling for one range write of n blocks
// with the head at h and positioning starting at startMs (after the
// controller overhead), with no queue and no placement memory: the choice a
// Disk with one outstanding range write makes. A file system that models
// the head itself (the VLD) uses it to place a block inside its ranges.
func Choose(l *disk.Layout, h disk.Head, startMs float64, d Desc, n, align int) (Target, error) {
	if n < 1 {
		return Target{}, fmt.Errorf("%w: %d blocks", ErrBadRequest, n)
	}
	align, err := checkAlign(align)
	if err != nil {
		return Target{}, err
	}
	runs, err := d.Runs(l.NumBlocks(), n, align)
	if err != nil {
		return Target{}, err
	}
	pieces := splitPieces(l, runs, n, align)
	ps := make([]hrsPiece, len(pieces))
	for i, pc := range pieces {
		ps[i] = hrsPiece{pc: pc, n: n, a: align, lb: l.MoveMs(h, pc.track, true)}
	}
	best := candidate{cost: math.Inf(1), idx: -1}
	never := func(int64, int) bool { return false }
	est, _ := hrsSearch(l, h, startMs, 0, ps, never, &best)
	if best.idx < 0 {
		return Target{}, fmt.Errorf("%w: no target in %d pieces", ErrNoTarget, len(ps))
	}
	return Target{Addr: best.addr, PositionMs: best.cost, Estimates: est}, nil
}
