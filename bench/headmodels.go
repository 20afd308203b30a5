package bench

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// Head model names, as rows of `vlfs bench headmodels` name them.
const (
	HeadOracle  = "oracle"  // the simulated head: exact geometry and position
	HeadProfile = "profile" // the profiled head: a measured skip x think-time table
	HeadNone    = "none"    // no eager writing: update in place
)

// HeadModelsConfig is the validation of issue 8: random synchronous 4 KiB
// updates with the oracle head, the profiled head and none.
type HeadModelsConfig struct {
	Model        *disk.Model
	DiskBytes    int64     // simulated disk region (image size); default 128 MiB
	Utilizations []float64 // default 0.5, 0.8
	Updates      int       // measured updates per point; default 2000
	Seed         int64
	Seeds        int // runs with seeds Seed, Seed+1, ... averaged; default 1
	// Profile is the profiled head's table; nil measures sim:MODEL over
	// the same region with SimGrid.
	Profile *profile.Profile
}

// SimGrid is the grid the benchmarks profile a simulated disk with: skips
// 0..256 KiB in 4 KiB steps (two tracks of an ST19101, five of an HP
// C2247A), think times 0..20 ms in 50 us steps (more than three
// revolutions of either), nine repetitions.
func SimGrid() (profile.Grid, int) {
	return profile.Grid{SkipStepBytes: 4096, Skips: 161, ThinkStepMs: 0.05, Thinks: 401}, 9
}

// ProfileSim profiles the simulator as a black box over its first
// regionBytes, in 4 KiB blocks, with SimGrid.
func ProfileSim(m *disk.Model, regionBytes int64, seed int64) (*profile.Profile, error) {
	sim, err := profile.NewSim(m, 4096, regionBytes)
	if err != nil {
		return nil, err
	}
	g, reps := SimGrid()
	return profile.Measure(context.Background(), sim, profile.Config{
		Grid: g, Repetitions: reps, Seed: seed, Target: "sim:" + m.Name, Tool: "vlfs bench headmodels",
	})
}

func (cfg *HeadModelsConfig) setDefaults() error {
	if cfg.Model == nil {
		return fmt.Errorf("headmodels: no disk model: %w", disk.ErrInvalidModel)
	}
	if cfg.DiskBytes == 0 {
		cfg.DiskBytes = 128 << 20
	}
	if len(cfg.Utilizations) == 0 {
		cfg.Utilizations = []float64{0.5, 0.8}
	}
	if cfg.Updates <= 0 {
		cfg.Updates = 2000
	}
	cfg.Seeds = max(cfg.Seeds, 1)
	if cfg.Profile == nil {
		p, err := ProfileSim(cfg.Model, cfg.DiskBytes, cfg.Seed)
		if err != nil {
			return fmt.Errorf("headmodels: profiling sim:%s: %w", cfg.Model.Name, err)
		}
		cfg.Profile = p
	}
	return nil
}

// HeadModels runs the validation on the simulated clock: for each
// utilisation, the same update sequence with each head model. Rows carry,
// for the profiled head, the share of the oracle's reduction of mean
// latency (against none) that it achieves.
func HeadModels(cfg HeadModelsConfig) (*Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	rep := &Report{
		Bench: "headmodels", Disk: cfg.Model.Params(), Clock: ClockSimulated,
		Params: map[string]any{
			"disk_bytes": cfg.DiskBytes, "updates": cfg.Updates, "seed": cfg.Seed, "seeds": cfg.Seeds, "block_bytes": 4096,
			"profile": profileParams(cfg.Profile),
		},
		Columns: []string{"head", "utilization", "mean_ms", "overhead_ms", "transfer_ms", "locate_ms", "requests_per_update", "share_of_oracle_reduction"},
		Notes: []string{
			"each update: one synchronous 4 KiB write at a random offset of a file filling `utilization` of the logical disk, no think time; eager heads run as many warm-up updates first",
			"oracle: the simulated head (geometry and head position known); profile: only the measured table and where/when the last request ended; none: update in place",
			"share_of_oracle_reduction = (none - profile) / (none - oracle) of mean_ms; target >= 0.8",
			"with seeds > 1 every metric is the mean over the seeds' runs (the profile is measured once)",
		},
	}
	for _, u := range cfg.Utilizations {
		rows := map[string]map[string]any{}
		for _, h := range []string{HeadOracle, HeadProfile, HeadNone} {
			row, err := headPointSeeds(cfg, h, u)
			if err != nil {
				return nil, err
			}
			rows[h] = row
			rep.Rows = append(rep.Rows, row)
		}
		none, oracle := rows[HeadNone]["mean_ms"].(float64), rows[HeadOracle]["mean_ms"].(float64)
		if none > oracle {
			rows[HeadProfile]["share_of_oracle_reduction"] = (none - rows[HeadProfile]["mean_ms"].(float64)) / (none - oracle)
		}
	}
	return rep, nil
}

// profileParams is a profile's grid and summary for a report.
func profileParams(p *profile.Profile) map[string]any {
	s := p.Summarize()
	return map[string]any{
		"target": p.Meta.Target, "clock": p.Meta.Clock, "repetitions": p.Meta.Repetitions,
		"skip_step_bytes": p.Grid.SkipStepBytes, "skips": p.Grid.Skips, "max_skip_bytes": p.Grid.MaxSkipBytes(),
		"think_step_ms": p.Grid.ThinkStepMs, "thinks": p.Grid.Thinks, "max_think_ms": p.Grid.MaxThinkMs(),
		"min_ms": s.MinMs, "median_ms": s.MedianMs, "max_ms": s.MaxMs, "gain": s.Gain, "seq_gain": s.SeqGain,
		"rel_spread": s.RelSpread, "flat": s.Flat,
	}
}

// headPointSeeds averages headPoint over cfg.Seeds seeds.
func headPointSeeds(cfg HeadModelsConfig, head string, u float64) (map[string]any, error) {
	var sum map[string]any
	for i := 0; i < cfg.Seeds; i++ {
		row, err := headPoint(cfg, cfg.Seed+int64(i), head, u)
		if err != nil {
			return nil, err
		}
		if sum == nil {
			sum = row
			continue
		}
		for k, v := range row {
			if f, ok := v.(float64); ok && k != "utilization" {
				sum[k] = sum[k].(float64) + f
			}
		}
	}
	for k, v := range sum {
		if f, ok := v.(float64); ok && k != "utilization" {
			sum[k] = f / float64(cfg.Seeds)
		}
	}
	return sum, nil
}

// headPoint runs one (head, utilisation) point, as updatesPoint does.
func headPoint(cfg HeadModelsConfig, seed int64, head string, u float64) (map[string]any, error) {
	place, opts := vld.PlaceEager, vld.Options{}
	switch head {
	case HeadNone:
		place = vld.PlaceInPlace
	case HeadProfile:
		opts.Head = cfg.Profile
	}
	dev := device.NewMem(cfg.DiskBytes)
	if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: cfg.Model}, place); err != nil {
		return nil, err
	}
	d, err := logical.Open(dev, opts)
	if err != nil {
		return nil, fmt.Errorf("headmodels %s: %w", head, err)
	}
	defer d.Volume().Close()
	file := int64(float64(d.Blocks()) * u)
	if err := fillLogical(d, file); err != nil {
		return nil, fmt.Errorf("headmodels %s at %.0f%%: %w", head, u*100, err)
	}
	rng := rand.New(rand.NewSource(seed))
	one := [][]byte{make([]byte, d.BlockSize())}
	update := func() error { return d.WriteSync(rng.Int63n(file), one) }
	if place == vld.PlaceEager {
		for i := 0; i < cfg.Updates; i++ {
			if err := update(); err != nil {
				return nil, fmt.Errorf("headmodels %s: warm-up at %.0f%%: %w", head, u*100, err)
			}
		}
	}
	s0 := d.Volume().Stats()
	for i := 0; i < cfg.Updates; i++ {
		if err := update(); err != nil {
			return nil, fmt.Errorf("headmodels %s at %.0f%%: %w", head, u*100, err)
		}
	}
	s1 := d.Volume().Stats()
	if err := d.Check(); err != nil {
		return nil, fmt.Errorf("headmodels %s at %.0f%%: %w", head, u*100, err)
	}
	n := float64(cfg.Updates)
	return map[string]any{
		"head":                head,
		"utilization":         u,
		"mean_ms":             (s1.SimNowMs - s0.SimNowMs) / n,
		"overhead_ms":         (s1.Sim.OverheadMs - s0.Sim.OverheadMs) / n,
		"transfer_ms":         (s1.Sim.TransferMs - s0.Sim.TransferMs) / n,
		"locate_ms":           (s1.Sim.LocateMs - s0.Sim.LocateMs) / n,
		"requests_per_update": float64(s1.Writes-s0.Writes) / n,
	}, nil
}

// fillLogical writes logical blocks [0, n) in 64-block requests and syncs.
func fillLogical(d *logical.Disk, n int64) error {
	chunk := make([][]byte, 64)
	for i := range chunk {
		chunk[i] = make([]byte, d.BlockSize())
	}
	for l := int64(0); l < n; l += 64 {
		if err := d.Write(l, chunk[:min(int64(64), n-l)]); err != nil {
			return err
		}
	}
	return d.Sync()
}
