package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchThreshold is `vlfs bench threshold`: Figure 2 of the virtual-log
// paper.
func runBenchThreshold(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("threshold", "--disk NAME|FILE [--unit-sectors N] [--writes N] [--seed S] [--quick] [--json]", stdout, stderr)
	unit := b.eagerAllocator("2", "it measures the eager allocator's track fill threshold")
	seed := b.seed(seedUsage)
	quick := b.quick("a smoke run: 3,000 writes per threshold")
	writes := b.fl.Int("writes", bench.DefaultThresholdWrites, "writes simulated per threshold (at least)")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		*writes = quickSamples(b.fl, "writes", *writes, 3000)
	}
	if *writes <= 0 {
		return b.usageErr("--writes must be positive, got %d", *writes)
	}
	rep, err := bench.Threshold(bench.ThresholdConfig{Model: b.model, UnitSectors: *unit, Writes: *writes, Seed: *seed})
	return b.report(rep, err)
}
