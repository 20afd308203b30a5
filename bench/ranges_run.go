package bench

import (
	"fmt"
	"math/rand/v2"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// rangesDriver keeps a queue of random requests full for one configuration:
// a closed loop with no think time, so the disk is never idle and the mean
// service time is also the time per operation.
type rangesDriver struct {
	d    *rangedisk.Disk
	rng  *rand.Rand
	p    rangesPoint
	span rangedisk.Extent
	n    int // blocks per request
}

// spanOf is the region requests go to: the whole disk, the first block
// group (outer zone, 96 blocks a track), or the first track.
func spanOf(l *disk.Layout, span string) rangedisk.Extent {
	switch span {
	case "group":
		return rangedisk.Extent{Begin: 0, End: RangesGroupBlocks}
	case "track":
		return rangedisk.Extent{Begin: 0, End: int64(l.TrackBlocks(0))}
	}
	return rangedisk.Extent{Begin: 0, End: l.NumBlocks()}
}

// next makes one request.
func (r *rangesDriver) next() rangedisk.Request {
	if r.p.readPct > 0 && r.rng.IntN(100) < r.p.readPct {
		return rangedisk.Request{Kind: rangedisk.Read, Addr: r.startIn(int64(r.n)), Blocks: r.n}
	}
	if r.p.span == "track" {
		return rangedisk.Request{Kind: rangedisk.RangeWrite, Blocks: r.n, Desc: rangedisk.List(r.span)}
	}
	if r.p.rangeBlks <= 1 && r.p.choices <= 1 {
		return rangedisk.Request{Kind: rangedisk.Write, Addr: r.startIn(int64(r.n)), Blocks: r.n}
	}
	size := int64(max(r.p.rangeBlks, r.n))
	ranges := make([]rangedisk.Extent, r.p.choices)
	for i := range ranges {
		s := r.startIn(size)
		ranges[i] = rangedisk.Extent{Begin: s, End: s + size}
	}
	return rangedisk.Request{Kind: rangedisk.RangeWrite, Blocks: r.n, Desc: rangedisk.List(ranges...)}
}

// startIn is a uniform start for size blocks inside the span.
func (r *rangesDriver) startIn(size int64) int64 {
	return r.span.Begin + r.rng.Int64N(r.span.Len()-size+1)
}

// submit queues one request and a barrier: the workload treats its whole
// span as free (every write may overwrite old data), so each request
// accounts for all earlier placements and the disk may forget them once
// they complete.
func (r *rangesDriver) submit() error {
	if _, err := r.d.Submit(r.next()); err != nil {
		return err
	}
	r.d.Barrier()
	return nil
}

// rangesSums accumulates the measured operations.
type rangesSums struct {
	ops                              int
	total, seek, rot, xfer, ovh, est float64
}

func (s *rangesSums) add(c rangedisk.Completion) {
	a := c.Access
	s.ops++
	s.total += a.TotalMs()
	s.seek += a.SeekMs + a.HeadSwitchMs
	s.rot += a.RotationMs
	s.xfer += a.TransferMs
	s.ovh += a.OverheadMs
	s.est += float64(c.Estimates)
}

// runRangesPoint runs one configuration and returns its row.
func runRangesPoint(l *disk.Layout, cfg RangesConfig, p rangesPoint, seed uint64) (map[string]any, error) {
	d, err := rangedisk.New(l, rangedisk.Config{QueueDepth: p.queue, Scheduler: p.sched, ECSTargets: p.ecsK})
	if err != nil {
		return nil, fmt.Errorf("bench ranges: %w", err)
	}
	r := &rangesDriver{d: d, rng: rand.New(rand.NewPCG(seed, 0x72616e676573)), p: p, span: spanOf(l, p.span), n: cfg.WriteBlocks}
	if r.span.Len() < int64(max(p.rangeBlks, r.n)) {
		return nil, fmt.Errorf("bench ranges: a %d-block range does not fit in the %s span of %d blocks", p.rangeBlks, p.span, r.span.Len())
	}
	for d.Outstanding() < p.queue {
		if err := r.submit(); err != nil {
			return nil, fmt.Errorf("bench ranges: %w", err)
		}
	}
	warm := max(2*p.queue, 20)
	var s rangesSums
	for i := range warm + p.ops {
		c, _ := d.Step()
		if c.Err != nil {
			return nil, fmt.Errorf("bench ranges: figure %s: %w", p.figure, c.Err)
		}
		if i >= warm {
			s.add(c)
		}
		if err := r.submit(); err != nil {
			return nil, fmt.Errorf("bench ranges: %w", err)
		}
	}
	return rangesRow(l, p, s), nil
}

// rangesRow turns the sums into a row, with the paper's work bounds
// W_EC = S*Q and W_HR = ceil(S/T)*Q for S blocks of targets per request
// (choices x range size) and T blocks per track of the outer zone.
func rangesRow(l *disk.Layout, p rangesPoint, s rangesSums) map[string]any {
	n := float64(s.ops)
	rangeBlks, choices := p.rangeBlks, p.choices
	tb := l.TrackBlocks(0)
	if p.span == "track" {
		rangeBlks = tb
	}
	perRange := (rangeBlks + tb - 1) / tb
	row := map[string]any{
		"figure": p.figure, "span": p.span, "queue_depth": p.queue, "range_blocks": rangeBlks,
		"choices": choices, "read_pct": p.readPct, "scheduler": p.sched.String(), "ecs_targets": p.ecsK,
		"mean_ms": s.total / n, "seek_ms": s.seek / n, "rotation_ms": s.rot / n,
		"transfer_ms": s.xfer / n, "overhead_ms": s.ovh / n,
		"estimates_per_decision": s.est / n,
		"w_ec":                   rangeBlks * choices * p.queue,
		"w_hr":                   perRange * choices * p.queue,
		"ops":                    s.ops,
	}
	return row
}
