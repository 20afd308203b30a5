package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// Experiments of `vlfs bench batch`.
const (
	ExperimentModel = "model" // the paper's model, simulated event by event
	ExperimentLive  = "live"  // the VLD's scheduler, allocator and disk model
)

// ErrBadConfig marks a BatchConfig with a bad parameter; the message
// names it.
var ErrBadConfig = errors.New("bad batch benchmark parameter")

// BatchConfig configures Batch: Carson and Setia's read-priority write
// batching. Zero values pick the defaults (DefaultBatchConfig).
type BatchConfig struct {
	Model        *disk.Model // default carson-setia, the paper's hypothetical disk
	BlockSize    int         // bytes; default 8192, the paper's block
	Experiments  []string    // model, live; default both
	Arrivals     []string    // model experiment: arrival variants (batch_arrivals.go); default DefaultArrivals
	Loads        []BatchLoad // default A-D (variants with loads of their own keep theirs)
	MaxBatch     int         // model experiment: batch sizes 1..MaxBatch; default 32
	PeriodMs     float64     // update interval T: writes reach the disk queue every T; default 30 s
	Warm         int         // intervals run before measuring; default 1
	ModelPulses  int         // model experiment: measured intervals per point; default 2000
	LivePulses   int         // live experiment: measured intervals per load and mode; default 20
	LiveBlocks   int64       // live experiment: image size in blocks; default the whole disk
	LiveFraction float64     // live experiment: share of the free space holding data; default 0.5
	Modes        []string    // live experiment: default LiveModes()
	Seed         int64
	Progress     io.Writer // where to show progress (stderr); nil for none

	cstar    disk.CStarInputs
	progress *Progress
}

// QuickBatchConfig is a small configuration for smoke runs: fewer
// intervals, a 64 MiB image, batch sizes up to 16.
func QuickBatchConfig() BatchConfig {
	return BatchConfig{MaxBatch: 16, ModelPulses: 200, LivePulses: 4, LiveBlocks: 8192}
}

func (c *BatchConfig) defaults() error {
	if c.Model == nil {
		m, err := disk.Preset("carson-setia")
		if err != nil {
			return err
		}
		c.Model = m
	}
	setInt := func(p *int, def int) {
		if *p == 0 {
			*p = def
		}
	}
	setInt(&c.BlockSize, 8192)
	setInt(&c.MaxBatch, 32)
	setInt(&c.Warm, 1)
	setInt(&c.ModelPulses, 2000)
	setInt(&c.LivePulses, 20)
	if c.PeriodMs == 0 {
		c.PeriodMs = 30000
	}
	if c.LiveFraction == 0 {
		c.LiveFraction = 0.5
	}
	if c.Experiments == nil {
		c.Experiments = []string{ExperimentModel, ExperimentLive}
	}
	if c.Arrivals == nil {
		c.Arrivals = DefaultArrivals()
	}
	if c.Loads == nil {
		c.Loads = BatchLoads()
	}
	if c.Modes == nil {
		c.Modes = LiveModes()
	}
	if err := c.check(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadConfig, err)
	}
	return nil
}

// check names the first bad parameter.
func (c *BatchConfig) check() error {
	for _, p := range []struct {
		name string
		v    int64
	}{
		{"block size", int64(c.BlockSize)}, {"max batch", int64(c.MaxBatch)}, {"warm", int64(c.Warm)},
		{"model pulses", int64(c.ModelPulses)}, {"live pulses", int64(c.LivePulses)},
	} {
		if p.v <= 0 {
			return fmt.Errorf("%s must be positive, got %d", p.name, p.v)
		}
	}
	if c.BlockSize%disk.SectorSize != 0 {
		return fmt.Errorf("block size must be a multiple of %d bytes, got %d", disk.SectorSize, c.BlockSize)
	}
	if slices.Contains(c.Experiments, ExperimentLive) && (c.BlockSize < ondisk.MinBlockSize || c.BlockSize&(c.BlockSize-1) != 0) {
		return fmt.Errorf("block size of a volume must be a power of two >= %d, got %d", ondisk.MinBlockSize, c.BlockSize)
	}
	if c.LiveBlocks < 0 {
		return fmt.Errorf("live blocks must be >= 0 (0 = the whole disk), got %d", c.LiveBlocks)
	}
	if !(c.PeriodMs > 0) || math.IsInf(c.PeriodMs, 0) {
		return fmt.Errorf("period must be a positive finite time, got %v ms", c.PeriodMs)
	}
	if !(c.LiveFraction > 0 && c.LiveFraction < 1) {
		return fmt.Errorf("live fraction must be in (0, 1), got %v", c.LiveFraction)
	}
	for _, e := range c.Experiments {
		if e != ExperimentModel && e != ExperimentLive {
			return fmt.Errorf("unknown experiment %q (want model or live)", e)
		}
	}
	for _, a := range c.Arrivals {
		if _, err := arrivalVariantNamed(a); err != nil {
			return err
		}
	}
	for _, m := range c.Modes {
		if _, err := modeBatch(m); err != nil {
			return err
		}
	}
	return checkLoads(c.Loads)
}

// Batch runs Carson and Setia's experiments (docs/batching.md):
//
//   - model: their section-3 model simulated event by event on the disk
//     model's D, sigma^2 and k (by default their hypothetical disk):
//     Poisson reads and writes, loads A-D, batch sizes 1..MaxBatch, beside
//     formula (4); the hyperexponential (Figure 3) and zero-seek (Figure 5)
//     variants beside nothing, as no formula covers them;
//   - live: the same kind of workload served by a real volume on a memory
//     device, through its scheduler in modes cstar, track, segment and FIFO.
//
// All times are simulated.
func Batch(cfg BatchConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	d, err := newBatchDisk(cfg.Model, cfg.BlockSize)
	if err != nil {
		return nil, fmt.Errorf("bench batch: %w", err)
	}
	cfg.cstar = d.in
	cfg.progress = NewProgress(cfg.Progress, "bench batch", cfg.points())
	defer cfg.progress.Done()
	rep := newBatchReport(&cfg)
	for _, e := range cfg.Experiments {
		if e == ExperimentModel {
			modelRows(&cfg, d, rep)
			continue
		}
		if err := liveRows(&cfg, rep); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// points counts the runs Batch makes, for its progress display.
func (c *BatchConfig) points() int {
	n := 0
	for _, e := range c.Experiments {
		if e == ExperimentModel {
			for _, a := range c.Arrivals {
				v, _ := arrivalVariantNamed(a) // checked by defaults
				n += len(v.loadsFor(c.Loads)) * c.MaxBatch
			}
		} else {
			n += len(c.Loads) * len(c.Modes)
		}
	}
	return n
}

func newBatchReport(cfg *BatchConfig) *Report {
	in := cfg.cstar
	dp := cfg.Model.Params()
	dp["block_size"] = cfg.BlockSize
	dp["d_ms"], dp["sigma2_ms2"], dp["k_ms_per_block"] = in.DMs, in.Sigma2Ms2, in.KMs
	dp["c_star_blocks"], dp["batch_blocks"] = in.CStar, in.Batch
	return &Report{
		Bench: "batch", Disk: dp, Clock: ClockSimulated,
		Params: map[string]any{
			"period_ms": cfg.PeriodMs, "warm_periods": cfg.Warm, "model_periods": cfg.ModelPulses,
			"live_periods": cfg.LivePulses, "live_blocks": cfg.LiveBlocks, "live_fraction": cfg.LiveFraction,
			"hyperexp_ca2": hyperCa2, "seed": cfg.Seed,
		},
		Columns: []string{"experiment", "arrivals", "load", "mode", "rho_r", "rho_w", "batch_blocks",
			"read_mean_ms", "model_ms", "read_p99_ms", "write_mb_s", "write_mean_ms", "util", "reads"},
		Notes: []string{
			"loads: rho_r = lambda_r (D + k), rho_w = lambda_w (D + k), D + k the mean one-block service time; writes wait in a cache and reach the disk queue every period_ms",
			"model: seek of a random pair of distinct cylinders, rotation uniform over a revolution, k ms per block, independent; model_ms is formula (4), left out where its utilization util >= 1 (no steady state) and for every variant but poisson, which it does not cover",
			"model arrivals, as the paper's figures: poisson (Figure 2, loads A-D), hyperexp-reads (Figure 3: reads hyperexponential with C_a^2 = 5, writes Poisson, loads 3a and 3b), hyperexp-writes (Figure 4: writes hyperexponential, reads Poisson, loads A-D), zero-seek (Figure 5: a write batch that follows a write pays no seek, loads A-D), zero-seek-hyperexp-reads (Figure 6 B, loads 6a and 6b); hyperexp (both bursty) on request",
			"model: the points of one load share their random streams (common random numbers), so the shape of a curve is less noisy than any one point",
			"live: a volume on a memory device, data on live_fraction of it; reads of random data blocks; each period's writes as 512 KiB requests placed by the allocator; write_mb_s = bytes written / disk time spent writing; util = disk busy time / elapsed",
		},
	}
}

// modelRows adds the model experiment and a note per curve on where its
// simulated minimum lies.
func modelRows(cfg *BatchConfig, d *batchDisk, rep *Report) {
	for _, arr := range cfg.Arrivals {
		v, _ := arrivalVariantNamed(arr) // checked by defaults
		for li, l := range v.loadsFor(cfg.Loads) {
			bm := newBatchModel(d, l, cfg.PeriodMs)
			best, bestC := math.Inf(1), 0
			for c := 1; c <= cfg.MaxBatch; c++ {
				run := batchRun{m: bm, c: c, v: v,
					warm: cfg.Warm, pulses: cfg.ModelPulses, seed: cfg.Seed*1000 + int64(li)}
				mean, n := run.simulate()
				ms, util := bm.responseMs(c)
				row := map[string]any{
					"experiment": ExperimentModel, "arrivals": arr, "load": l.Name, "rho_r": l.RhoR, "rho_w": l.RhoW,
					"batch_blocks": c, "util": util, "reads": n,
				}
				if n > 0 {
					row["read_mean_ms"] = mean
					if mean < best {
						best, bestC = mean, c
					}
				}
				if arr == ArrivalsPoisson && util < 1 {
					row["model_ms"] = ms
				}
				rep.Rows = append(rep.Rows, row)
				cfg.progress.Step("model " + arr + " load " + l.Name)
			}
			rep.Notes = append(rep.Notes, optimumNote(v, l, best, bestC, bm.formulaBest(cfg.MaxBatch), cfg.cstar.CStar))
		}
	}
}

// liveRows adds the live experiment, one memory device reused by every run.
func liveRows(cfg *BatchConfig, rep *Report) error {
	nb := cfg.Model.CapacityBytes() / int64(cfg.BlockSize)
	if cfg.LiveBlocks > 0 {
		nb = min(nb, cfg.LiveBlocks)
	}
	rep.Params["live_blocks"] = nb
	dev := device.NewMem(nb * int64(cfg.BlockSize))
	for _, l := range cfg.Loads {
		means := map[string]float64{}
		for _, mode := range cfg.Modes {
			res, err := liveRun{cfg: cfg, dev: dev, load: l, mode: mode}.run()
			if err != nil {
				return err
			}
			row := res.row(l, mode, cfg.BlockSize)
			rep.Rows = append(rep.Rows, row)
			cfg.progress.Step("live load " + l.Name + " " + mode)
			if m, ok := row["read_mean_ms"].(float64); ok {
				means[mode] = m
			}
		}
		if c, ok := means[ModeCStar]; ok {
			rep.Notes = append(rep.Notes, liveNote(l, c, means))
		}
	}
	return nil
}

// liveNote compares c* batching's mean read response with the baselines.
func liveNote(l BatchLoad, c float64, means map[string]float64) string {
	s := fmt.Sprintf("live load %s: mean read response with c* batching %.1f ms", l.Name, c)
	for _, m := range []string{ModeSegment, ModeFIFO} {
		if b, ok := means[m]; ok {
			s += fmt.Sprintf("; %s %.1f ms (%.1fx)", m, b, b/c)
		}
	}
	return s
}
