package bench

import (
	"fmt"
	"io"
	"slices"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// Defaults of `vlfs bench ranges`.
const (
	DefaultRangesOps      = 2000 // measured operations per configuration
	DefaultRangesQuickOps = 300
	RangesGroupBlocks     = 4096 // the paper's block group (FFS cylinder group)
	RangesTrackRange      = 100  // the paper's "track-sized" range, just above a track
)

// RangesFigures lists the experiments Ranges can run, in report order.
func RangesFigures() []string { return []string{"4", "5", "6", "choices", "7", "8", "cost", "vlfs"} }

// RangesConfig configures Ranges. Zero values pick the defaults.
type RangesConfig struct {
	Model       *disk.Model
	Ops         int      // measured operations per configuration
	Seed        uint64   // the run is deterministic for a seed
	Quick       bool     // fewer queue depths, choices and read mixes (CI)
	Figures     []string // subset of RangesFigures(); nil = all
	Scheduler   rangedisk.Scheduler
	ECSTargets  int       // k for ECS in figures 4-7 and choices; 0 = all
	WriteBlocks int       // blocks per request (512 B each); 0 means 1
	Progress    io.Writer // where to show progress (stderr); nil for none
}

func (c *RangesConfig) defaults() error {
	if c.Model == nil {
		return fmt.Errorf("bench ranges: no disk model")
	}
	if c.Ops == 0 {
		c.Ops = DefaultRangesOps
		if c.Quick {
			c.Ops = DefaultRangesQuickOps
		}
	}
	if c.WriteBlocks == 0 {
		c.WriteBlocks = 1
	}
	if c.Ops < 0 || c.WriteBlocks < 0 || c.ECSTargets < 0 {
		return fmt.Errorf("bench ranges: ops, write blocks and ECS targets must be positive, got %d, %d, %d", c.Ops, c.WriteBlocks, c.ECSTargets)
	}
	if c.Figures == nil {
		c.Figures = RangesFigures()
	}
	for _, f := range c.Figures {
		if !slices.Contains(RangesFigures(), f) {
			return fmt.Errorf("bench ranges: unknown figure %q (valid: %v)", f, RangesFigures())
		}
	}
	return nil
}

// rangesPoint is one configuration: one row of the report.
type rangesPoint struct {
	figure    string
	span      string // "disk", "group" or "track"
	queue     int
	rangeBlks int
	choices   int
	readPct   int
	sched     rangedisk.Scheduler
	ecsK      int
	ops       int
}

// depths is the queue-depth axis of Figures 4-6.
func (c *RangesConfig) depths() []int {
	if c.Quick {
		return []int{1, 4, 16}
	}
	return []int{1, 2, 4, 8, 16, 32, 64}
}

func (c *RangesConfig) choiceAxis() []int {
	if c.Quick {
		return []int{1, 8, 64}
	}
	return []int{1, 2, 4, 8, 16, 32, 64}
}

func (c *RangesConfig) readAxis() []int {
	if c.Quick {
		return []int{0, 50, 100}
	}
	return []int{0, 10, 25, 50, 75, 90, 100}
}

// points lists every configuration of the selected figures.
func (c *RangesConfig) points() []rangesPoint {
	var ps []rangesPoint
	base := rangesPoint{choices: 1, sched: c.Scheduler, ecsK: c.ECSTargets, ops: c.Ops}
	for _, f := range c.Figures {
		p := base
		p.figure = f
		switch f {
		case "4", "5", "6":
			p.rangeBlks = map[string]int{"4": 1, "5": RangesTrackRange, "6": RangesGroupBlocks}[f]
			for _, span := range []string{"disk", "group"} {
				for _, q := range c.depths() {
					p.span, p.queue = span, q
					ps = append(ps, p)
				}
			}
		case "choices":
			p.span, p.queue = "group", 1
			for _, r := range []int{1, RangesTrackRange} {
				for _, k := range c.choiceAxis() {
					p.rangeBlks, p.choices = r, k
					ps = append(ps, p)
				}
			}
		case "7":
			p.span = "group"
			for _, q := range []int{1, 16} {
				for _, r := range []int{1, RangesTrackRange} {
					for _, rd := range c.readAxis() {
						p.queue, p.rangeBlks, p.readPct = q, r, rd
						ps = append(ps, p)
					}
				}
			}
		case "8":
			ps = append(ps, c.fig8Points(p)...)
		case "cost":
			ps = append(ps, c.costPoints(p)...)
		}
	}
	return ps
}

// fig8Points: repeated writes to one track, ECS with k equally spaced
// choices (k = 0 in the row means every block of the track).
func (c *RangesConfig) fig8Points(p rangesPoint) []rangesPoint {
	var ps []rangesPoint
	p.span, p.queue, p.sched, p.rangeBlks = "track", 1, rangedisk.ECS, 0 // 0: the whole track
	ks := []int{1, 2, 4, 8, 16, 32, 64, 0}
	if c.Quick {
		ks = []int{1, 8, 0}
	}
	for _, k := range ks {
		p.ecsK, p.choices = k, 1
		ps = append(ps, p)
	}
	return ps
}

// costPoints: the same workload under HRS and full-expansion ECS, to count
// service-time estimates per decision against W_EC and W_HR.
func (c *RangesConfig) costPoints(p rangesPoint) []rangesPoint {
	var ps []rangesPoint
	p.span = "group"
	qs, rs := []int{1, 4, 16, 64}, []int{RangesTrackRange, RangesGroupBlocks}
	if c.Quick {
		qs, rs = []int{1, 16}, []int{RangesTrackRange}
	}
	for _, r := range rs {
		for _, q := range qs {
			for _, s := range []rangedisk.Scheduler{rangedisk.HRS, rangedisk.ECS} {
				p.rangeBlks, p.queue, p.sched, p.ecsK = r, q, s, 0
				p.ops = c.Ops
				if s == rangedisk.ECS && r*q > 16*RangesTrackRange {
					p.ops = max(c.Ops/10, 50) // full expansion is slow on the wall clock, not on the simulated one
				}
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// rangesColumns is the row layout: parameters, then metrics.
var rangesColumns = []string{
	"figure", "span", "queue_depth", "range_blocks", "choices", "read_pct", "scheduler", "ecs_targets",
	"placement", "chunk_blocks", "file_blocks", // figure vlfs
	"mean_ms", "seek_ms", "rotation_ms", "transfer_ms", "overhead_ms",
	"estimates_per_decision", "w_ec", "w_hr", "ops",
	"read_requests", "read_ms", "read_locate_ms", "blocks_per_read", // figure vlfs
}

// Ranges reproduces section 4.4 of the range-writes paper (Figures 4-8 and
// the choices figure of 4.4.2) on a simulated disk with a command queue:
// random writes (and reads, Figure 7) kept Q deep, each write either to
// one exact block or a range write over `choices` random ranges of
// range_blocks blocks inside the span.
func Ranges(cfg RangesConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	l, err := disk.NewLayout(cfg.Model, disk.SectorSize, 0)
	if err != nil {
		return nil, fmt.Errorf("bench ranges: %w", err)
	}
	ps := cfg.points()
	var vps []rangesVLFSPoint
	if slices.Contains(cfg.Figures, "vlfs") {
		vps = cfg.vlfsPoints()
	}
	prog := NewProgress(cfg.Progress, "bench ranges", len(ps)+len(vps))
	rep := &Report{Bench: "ranges", Disk: cfg.Model.Params(), Clock: ClockSimulated, Columns: rangesColumns,
		Params: map[string]any{"ops_per_row": cfg.Ops, "seed": cfg.Seed, "quick": cfg.Quick,
			"write_blocks": cfg.WriteBlocks, "block_bytes": disk.SectorSize, "group_blocks": RangesGroupBlocks}}
	for _, p := range ps {
		row, err := runRangesPoint(l, cfg, p, cfg.Seed) // one stream for all rows: comparisons are paired
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		prog.Step(fmt.Sprintf("figure %s span %s Q=%d range=%d choices=%d reads=%d%% %v", p.figure, p.span, p.queue, p.rangeBlks, p.choices, p.readPct, p.sched))
	}
	for _, p := range vps {
		row, err := runRangesVLFS(cfg.Model, p, cfg.Seed)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, row)
		prog.Step(fmt.Sprintf("figure vlfs %v placement, %d-block appends", p.place, p.chunk))
	}
	prog.Done()
	rep.Notes = rangesNotes(l, rep.Rows)
	return rep, nil
}
