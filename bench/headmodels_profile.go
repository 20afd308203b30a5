package bench

import (
	"context"
	"fmt"
	"math"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// ProfileCellsConfig is `vlfs bench headmodels --workload profile`: one
// profile as a report, a row per cell, for the plot of issue 8's closing
// note (tools/figures draws it as a map).
type ProfileCellsConfig struct {
	Model     *disk.Model // profiled as sim:MODEL when Profile is nil
	DiskBytes int64       // simulated region; default 128 MiB
	Seed      int64
	// Profile, if set, is reported as it is (a host's profile, say)
	// instead of measuring the simulator.
	Profile *profile.Profile
}

// PlotGrid is the grid the simulator is profiled with for the plot:
// skips to 192 KiB in SimGrid's 4 KiB steps (1.5 ST19101 tracks, four HP
// C2247A ones) and think times to 12 ms (two ST19101 revolutions, one HP
// C2247A one) in 0.5 ms steps, nine repetitions: 1,225 cells, few enough
// for a report.
func PlotGrid() (profile.Grid, int) {
	return profile.Grid{SkipStepBytes: 4096, Skips: 49, ThinkStepMs: 0.5, Thinks: 25}, 9
}

// ProfileCells measures (or takes) a profile and reports its cells.
func ProfileCells(cfg ProfileCellsConfig) (*Report, error) {
	p := cfg.Profile
	diskParams := map[string]any{}
	if p == nil {
		if cfg.Model == nil {
			return nil, fmt.Errorf("profile cells: no disk model: %w", disk.ErrInvalidModel)
		}
		if cfg.DiskBytes == 0 {
			cfg.DiskBytes = 128 << 20
		}
		sim, err := profile.NewSim(cfg.Model, 4096, cfg.DiskBytes)
		if err != nil {
			return nil, fmt.Errorf("profile cells: %w", err)
		}
		g, reps := PlotGrid()
		p, err = profile.Measure(context.Background(), sim, profile.Config{
			Grid: g, Repetitions: reps, Seed: cfg.Seed, Target: "sim:" + cfg.Model.Name, Tool: "vlfs bench headmodels",
		})
		if err != nil {
			return nil, fmt.Errorf("profile cells: sim:%s: %w", cfg.Model.Name, err)
		}
		diskParams = cfg.Model.Params()
	} else {
		diskParams["name"] = p.Meta.Target
	}
	clock := ClockWall
	if p.Meta.Clock == profile.ClockSimulated {
		clock = ClockSimulated
	}
	rep := &Report{
		Bench: "headmodels-profile", Disk: diskParams, Clock: clock,
		Params:  map[string]any{"profile": profileParams(p), "kind": p.Meta.Kind, "date": p.Meta.Date, "block_bytes": p.Meta.BlockBytes},
		Columns: []string{"think_ms", "skip_kib", "median_ms", "spread_ms", "mean_ms", "best_in_row"},
		Notes: []string{
			"a cell: the time of a write issued think_ms after the previous write completed, skip_kib past that write's end; median, interquartile spread and mean over the repetitions",
			"best_in_row: 1 for the cheapest skip (by mean, as the profiled head prices cells) of each think time",
		},
	}
	for i := 0; i < p.Grid.Thinks; i++ {
		best := 0
		for j := range p.MeanMs[i] {
			if p.MeanMs[i][j] < p.MeanMs[i][best] {
				best = j
			}
		}
		for j := 0; j < p.Grid.Skips; j++ {
			b := 0.0
			if j == best {
				b = 1
			}
			rep.Rows = append(rep.Rows, map[string]any{
				"think_ms": p.Grid.ThinkMs(i), "skip_kib": float64(p.Grid.SkipBytes(j)) / 1024,
				"median_ms": round4(p.MedianMs[i][j]), "spread_ms": round4(p.SpreadMs[i][j]), "mean_ms": round4(p.MeanMs[i][j]), "best_in_row": b,
			})
		}
	}
	return rep, nil
}

// round4 keeps 0.1 us of a time in ms: the report stays small.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
