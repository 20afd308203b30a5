package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchLocate is `vlfs bench locate`: Figure 1 of the virtual-log paper.
func runBenchLocate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench locate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "", "disk preset or model file (required)")
	unit := fl.Int("unit-sectors", 1, "allocation unit in 512-byte sectors (1 = per sector, as Figure 1)")
	samples := fl.Int("samples", bench.DefaultLocateSamples, "random head positions per utilization")
	seed := fl.Int64("seed", 1, "random seed")
	window := fl.Int("window", bench.DefaultLocateWindow, "cylinders simulated, from cylinder 0 within the outer zone")
	quick := fl.Bool("quick", false, "a smoke run: 2,000 samples per utilization")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	place := fl.String("placement", "eager", "only eager: it measures eager writings locate time against formula (2)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench locate --disk NAME|FILE [--unit-sectors N] [--samples N] [--seed S] [--window CYLS] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if !rejectPlacement("bench locate", *place, "it measures eager writing's locate time against formula (2)", stderr) {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		*samples = quickSamples(fl, "samples", *samples, 2000)
	}
	for _, p := range []struct {
		name string
		v    int
	}{{"--unit-sectors", *unit}, {"--samples", *samples}, {"--window", *window}} {
		if p.v <= 0 {
			fmt.Fprintf(stderr, "vlfs bench locate: %s must be positive, got %d\n", p.name, p.v)
			return exitUsage
		}
	}
	m, code := resolveDisk("bench locate", *diskName, stderr)
	if m == nil {
		return code
	}
	rep, err := bench.Locate(bench.LocateConfig{Model: m, UnitSectors: *unit, Samples: *samples, Seed: *seed, WindowCylinders: *window})
	if err != nil {
		return benchFailure("locate", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
