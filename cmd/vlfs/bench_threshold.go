package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchThreshold is `vlfs bench threshold`: Figure 2 of the virtual-log
// paper.
func runBenchThreshold(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("threshold", "--disk NAME|FILE [--unit-sectors N] [--writes N] [--seed S] [--quick] [--json]", stdout, stderr)
	b.disk("", diskModelUsage+" (required)")
	seed := b.seed(seedUsage)
	quick := b.quick("a smoke run: 3,000 writes per threshold")
	b.eagerOnly("it measures the eager allocator's track fill threshold")
	unit := b.fl.Int("unit-sectors", 1, "allocation unit in 512-byte sectors (1 = per sector, as Figure 2)")
	writes := b.fl.Int("writes", bench.DefaultThresholdWrites, "writes simulated per threshold (at least)")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		*writes = quickSamples(b.fl, "writes", *writes, 3000)
	}
	if *unit <= 0 || *writes <= 0 {
		return b.usageErr("--unit-sectors and --writes must be positive, got %d and %d", *unit, *writes)
	}
	m, ok := b.model()
	if !ok {
		return exitUsage
	}
	rep, err := bench.Threshold(bench.ThresholdConfig{Model: m, UnitSectors: *unit, Writes: *writes, Seed: *seed})
	return b.report(rep, err)
}
