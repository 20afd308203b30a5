package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchLocate is `vlfs bench locate`: Figure 1 of the virtual-log paper.
func runBenchLocate(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("locate", "--disk NAME|FILE [--unit-sectors N] [--samples N] [--seed S] [--window CYLS] [--quick] [--json]", stdout, stderr)
	unit := b.eagerAllocator("1", "it measures eager writing's locate time against formula (2)")
	seed := b.seed(seedUsage)
	quick := b.quick("a smoke run: 2,000 samples per utilization")
	samples := b.fl.Int("samples", bench.DefaultLocateSamples, "random head positions per utilization")
	window := b.fl.Int("window", bench.DefaultLocateWindow, "cylinders simulated, from cylinder 0 within the outer zone")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		*samples = quickSamples(b.fl, "samples", *samples, 2000)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"--samples", *samples}, {"--window", *window}} {
		if p.v <= 0 {
			return b.usageErr("%s must be positive, got %d", p.name, p.v)
		}
	}
	rep, err := bench.Locate(bench.LocateConfig{Model: b.model, UnitSectors: *unit, Samples: *samples, Seed: *seed, WindowCylinders: *window})
	return b.report(rep, err)
}
