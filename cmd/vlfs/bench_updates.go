package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
)

// runBenchUpdates is `vlfs bench updates`: Figure 8 of the virtual-log
// paper, eager placement against update-in-place and LFS on one simulated
// disk, and the file system on the eager VLD beside them (the vlfs row).
func runBenchUpdates(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench updates", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	size := fl.Int64("disk-mib", 128, "simulated disk region in MiB")
	updates := fl.Int("updates", 2000, "measured updates per point")
	seed := fl.Int64("seed", 1, "random seed")
	quick := fl.Bool("quick", false, "utilisations 0.5 and 0.8 only, 500 updates")
	place := fl.String("placement", "all", "placements to run: all (inplace, eager, lfs, and vlfs: the file system on the eager VLD), or a list of them")
	fsVersion := fsVersionFlag(fl)
	cleanPolicy := fl.String("clean-policy", "cost-benefit", "the lfs segment cleaner's policy: cost-benefit or greedy")
	head := fl.String("head", "sim", "eager placement's head model: sim (the simulator's own) or profile:FILE (vlfs profile)")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench updates [--disk NAME|FILE] [--disk-mib N] [--updates N] [--seed S] [--placement all|LIST] [--fs-version N] [--clean-policy cost-benefit|greedy] [--head sim|profile:FILE] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 || *size <= 0 || *updates <= 0 {
		fl.Usage()
		return exitUsage
	}
	m, code := resolveDisk("bench updates", *diskName, stderr)
	if m == nil {
		return code
	}
	rows, ok := parseUpdatesRows("bench updates", *place, stderr)
	if !ok {
		return exitUsage
	}
	version, ok := checkFSVersion("bench updates", fl, *fsVersion, rows, stderr)
	if !ok {
		return exitUsage
	}
	cp, err := vld.ParseCleanPolicy(*cleanPolicy)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs bench updates: --clean-policy: %v\n", err)
		return exitUsage
	}
	prof, err := parseHead(*head)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs bench updates: %v\n", err)
		return exitUsage
	}
	cfg := bench.UpdatesConfig{Model: m, DiskBytes: *size << 20, Updates: *updates, Seed: *seed, Placements: rows.placements, CleanPolicy: cp, Head: prof,
		VLFS: rows.vlfs, FSVersion: version}
	if *quick {
		cfg.Utilizations, cfg.Updates = []float64{0.5, 0.8}, quickSamples(fl, "updates", *updates, 500)
	}
	rep, err := bench.Updates(cfg)
	if err != nil {
		return updatesFailure("updates", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
