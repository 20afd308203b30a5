package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/vlfs/vlfs/bench"
)

// runBenchBatch is `vlfs bench batch`: Carson and Setia's read-priority
// write batching, their model simulated beside formula (4), and the VLD's
// scheduler in modes cstar, track, segment and fifo.
func runBenchBatch(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench batch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "carson-setia", "disk preset or model file (default: the paper's hypothetical disk)")
	blockSize := fl.Int("block-size", 8192, "block size, bytes (the paper's 8 KB)")
	exps := fl.String("experiments", "model,live", "comma-separated: model, live")
	arrivals := fl.String("arrivals", "poisson,hyperexp,zero-seek", "model experiment: comma-separated arrival variants")
	modes := fl.String("modes", strings.Join(bench.LiveModes(), ","), "live experiment: comma-separated scheduler modes")
	maxBatch := fl.Int("max-batch", 32, "model experiment: batch sizes 1..N")
	modelPeriods := fl.Int("model-periods", 2000, "model experiment: measured update intervals per point")
	livePeriods := fl.Int("live-periods", 20, "live experiment: measured update intervals per load and mode")
	liveBlocks := fl.Int64("live-blocks", 0, "live experiment: image size in blocks (0 = the whole disk)")
	seed := fl.Int64("seed", 1, "random seed")
	quick := fl.Bool("quick", false, "a small run: 200 model and 4 live intervals, batches up to 16, a 64 MiB image")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	place := fl.String("placement", "eager", "only eager: it measures the eager VLDs write batching")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench batch [--disk NAME|FILE] [--block-size B] [--experiments model,live] [--quick] [--json] [options]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if !rejectPlacement("bench batch", *place, "it measures the eager VLD's write batching", stderr) {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	m, code := resolveDisk("bench batch", *diskName, stderr)
	if m == nil {
		return code
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	cfg := bench.BatchConfig{}
	if *quick {
		cfg = bench.QuickBatchConfig()
	}
	cfg.Model, cfg.BlockSize, cfg.Seed, cfg.Progress = m, *blockSize, *seed, stderr
	cfg.Experiments, cfg.Arrivals, cfg.Modes = splitList(*exps), splitList(*arrivals), splitList(*modes)
	for _, o := range []struct {
		flag string
		dst  *int
		v    int
	}{{"max-batch", &cfg.MaxBatch, *maxBatch}, {"model-periods", &cfg.ModelPulses, *modelPeriods}, {"live-periods", &cfg.LivePulses, *livePeriods}} {
		if set[o.flag] || !*quick {
			if o.v <= 0 {
				fmt.Fprintf(stderr, "vlfs bench batch: --%s must be positive, got %d\n", o.flag, o.v)
				return exitUsage
			}
			*o.dst = o.v
		}
	}
	if set["live-blocks"] || !*quick {
		cfg.LiveBlocks = *liveBlocks
	}
	if *blockSize <= 0 || *liveBlocks < 0 {
		fmt.Fprintf(stderr, "vlfs bench batch: --block-size must be positive and --live-blocks >= 0, got %d and %d\n", *blockSize, *liveBlocks)
		return exitUsage
	}
	rep, err := bench.Batch(cfg)
	if errors.Is(err, bench.ErrBadConfig) {
		fmt.Fprintf(stderr, "vlfs bench batch: %v\n", err)
		return exitUsage
	}
	if err != nil {
		return benchFailure("batch", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
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
