package main

import (
	"errors"
	"io"
	"strings"

	"github.com/vlfs/vlfs/bench"
)

// runBenchBatch is `vlfs bench batch`: Carson and Setia's read-priority
// write batching, their model simulated beside formula (4), and the VLD's
// scheduler in modes cstar, track, segment and fifo.
func runBenchBatch(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("batch", "[--disk NAME|FILE] [--block-size B] [--experiments model,live] [--quick] [--json] [options]", stdout, stderr)
	b.disk("carson-setia", diskModelUsage+" (carson-setia: the paper's hypothetical disk)")
	seed := b.seed(seedUsage)
	quick := b.quick("a small run: 200 model and 4 live intervals, batches up to 16, a 64 MiB image")
	b.eagerOnly("it measures the eager VLD's write batching")
	blockSize := b.fl.Int("block-size", 8192, "block size, bytes (the paper's 8 KB)")
	exps := b.fl.String("experiments", "model,live", "comma-separated: model, live")
	arrivals := b.fl.String("arrivals", strings.Join(bench.DefaultArrivals(), ","),
		"model experiment: comma-separated arrival variants, one per figure of the batching paper: poisson (Figure 2), hyperexp-reads (3), hyperexp-writes (4), zero-seek (5), zero-seek-hyperexp-reads (6); also hyperexp (reads and writes bursty)")
	modes := b.fl.String("modes", strings.Join(bench.LiveModes(), ","), "live experiment: comma-separated scheduler modes")
	maxBatch := b.fl.Int("max-batch", 32, "model experiment: batch sizes 1..N")
	modelPeriods := b.fl.Int("model-periods", 2000, "model experiment: measured update intervals per point")
	livePeriods := b.fl.Int("live-periods", 20, "live experiment: measured update intervals per load and mode")
	liveBlocks := b.fl.Int64("live-blocks", 0, "live experiment: image size in blocks (0 = the whole disk)")
	if !b.parse(args) {
		return exitUsage
	}
	cfg := bench.BatchConfig{}
	if *quick {
		cfg = bench.QuickBatchConfig()
	}
	cfg.Model, cfg.BlockSize, cfg.Seed, cfg.Progress = b.model, *blockSize, *seed, stderr
	cfg.Experiments, cfg.Arrivals, cfg.Modes = splitList(*exps), splitList(*arrivals), splitList(*modes)
	for _, o := range []struct {
		flag string
		dst  *int
		v    int
	}{{"max-batch", &cfg.MaxBatch, *maxBatch}, {"model-periods", &cfg.ModelPulses, *modelPeriods}, {"live-periods", &cfg.LivePulses, *livePeriods}} {
		if b.set(o.flag) || !*quick {
			if o.v <= 0 {
				return b.usageErr("--%s must be positive, got %d", o.flag, o.v)
			}
			*o.dst = o.v
		}
	}
	if b.set("live-blocks") || !*quick {
		cfg.LiveBlocks = *liveBlocks
	}
	if *blockSize <= 0 || *liveBlocks < 0 {
		return b.usageErr("--block-size must be positive and --live-blocks >= 0, got %d and %d", *blockSize, *liveBlocks)
	}
	rep, err := bench.Batch(cfg)
	if errors.Is(err, bench.ErrBadConfig) {
		return b.usageErr("%v", err)
	}
	return b.report(rep, err)
}

// splitList reads a comma-separated flag value.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
