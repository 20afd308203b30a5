package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchThreshold is `vlfs bench threshold`: Figure 2 of the virtual-log
// paper.
func runBenchThreshold(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench threshold", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "", "disk preset or model file (required)")
	unit := fl.Int("unit-sectors", 1, "allocation unit in 512-byte sectors (1 = per sector, as Figure 2)")
	writes := fl.Int("writes", bench.DefaultThresholdWrites, "writes simulated per threshold (at least)")
	seed := fl.Int64("seed", 1, "random seed")
	quick := fl.Bool("quick", false, "a smoke run: 3,000 writes per threshold")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	place := fl.String("placement", "eager", "only eager: it measures the eager allocators track fill threshold")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench threshold --disk NAME|FILE [--unit-sectors N] [--writes N] [--seed S] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if !rejectPlacement("bench threshold", *place, "it measures the eager allocator's track fill threshold", stderr) {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		*writes = quickSamples(fl, "writes", *writes, 3000)
	}
	if *unit <= 0 || *writes <= 0 {
		fmt.Fprintf(stderr, "vlfs bench threshold: --unit-sectors and --writes must be positive, got %d and %d\n", *unit, *writes)
		return exitUsage
	}
	m, code := resolveDisk("bench threshold", *diskName, stderr)
	if m == nil {
		return code
	}
	rep, err := bench.Threshold(bench.ThresholdConfig{Model: m, UnitSectors: *unit, Writes: *writes, Seed: *seed})
	if err != nil {
		return benchFailure("threshold", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
