package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld/disk"
)

// runBenchBreakdown is `vlfs bench breakdown`: Table 2 and Figure 9 of the
// virtual-log paper, with the file system on the eager VLD (the vlfs row)
// beside the logical disk by default.
func runBenchBreakdown(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench breakdown", flag.ContinueOnError)
	fl.SetOutput(stderr)
	util := fl.Float64("utilization", 0.8, "fraction of the disk the updated file fills")
	updates := fl.Int("updates", 2000, "measured updates per disk and placement")
	size := fl.Int64("disk-mib", 128, "simulated disk region in MiB")
	seed := fl.Int64("seed", 1, "random seed")
	quick := fl.Bool("quick", false, "a smoke run: 32 MiB region, 300 updates")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	place := fl.String("placement", "inplace,eager,vlfs", "placements to run: a list of inplace, eager, lfs, vlfs (the file system on the eager VLD), or all")
	fsVersion := fsVersionFlag(fl)
	compacted := fl.Bool("compacted", false, "measure eager right after a compactor run (the paper's Table 2, footnote 1 of section 5.4)")
	diskName := fl.String("disk", "", "one disk preset or model file (default: hp97560 and st19101)")
	head := fl.String("head", "sim", "eager placement's head model: sim or profile:FILE (needs --disk: a profile belongs to one disk)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench breakdown [--utilization U] [--updates N] [--disk-mib N] [--seed S] [--placement LIST] [--fs-version N] [--compacted] [--disk NAME|FILE] [--head sim|profile:FILE] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil || fl.NArg() != 0 || *updates <= 0 || *size <= 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		*size = int64(quickSamples(fl, "disk-mib", int(*size), 32))
		*updates = quickSamples(fl, "updates", *updates, 300)
	}
	rows, ok := parseUpdatesRows("bench breakdown", *place, stderr)
	if !ok {
		return exitUsage
	}
	version, ok := checkFSVersion("bench breakdown", fl, *fsVersion, rows, stderr)
	if !ok {
		return exitUsage
	}
	cfg := bench.BreakdownConfig{Utilization: *util, Updates: *updates, DiskBytes: *size << 20, Seed: *seed, Placements: rows.placements, Compacted: *compacted,
		VLFS: rows.vlfs, FSVersion: version}
	if *diskName != "" {
		m, code := resolveDisk("bench breakdown", *diskName, stderr)
		if m == nil {
			return code
		}
		cfg.Models = []*disk.Model{m}
	}
	prof, err := parseHead(*head)
	if err != nil {
		fmt.Fprintf(stderr, "vlfs bench breakdown: %v\n", err)
		return exitUsage
	}
	if prof != nil && *diskName == "" {
		fmt.Fprintln(stderr, "vlfs bench breakdown: --head profile:FILE needs --disk (a profile is measured on one disk)")
		return exitUsage
	}
	cfg.Head = prof
	rep, err := bench.Breakdown(cfg)
	if err != nil {
		return updatesFailure("breakdown", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
