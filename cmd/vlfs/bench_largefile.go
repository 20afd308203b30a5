package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchLargefile is `vlfs bench largefile`: Figure 7 of the virtual-log
// paper, one large file written and read sequentially and at random, on
// vlfs for each placement.
func runBenchLargefile(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench largefile", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	size := fl.Int64("disk-mib", 128, "simulated disk (image) size in MiB")
	fileMiB := fl.Int64("file-mib", 10, "file size in MiB")
	ioKiB := fl.Int("io-kib", 64, "sequential request size in KiB (random I/O is 4 KiB)")
	seed := fl.Int64("seed", 1, "random seed")
	place := fl.String("placement", "all", "placements to run: all, or a list of eager, inplace, lfs")
	quick := fl.Bool("quick", false, "a 2 MiB file")
	head := fl.String("head", "sim", headUsage)
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench largefile [--disk NAME|FILE] [--disk-mib N] [--file-mib N] [--io-kib N] [--seed S] [--placement all|LIST] [--head sim|profile:FILE] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 || *size <= 0 || *fileMiB <= 0 || *ioKiB <= 0 || *fileMiB >= *size {
		fl.Usage()
		return exitUsage
	}
	ps, ok := parsePlacements("bench largefile", *place, bench.Placements, stderr)
	if !ok {
		return exitUsage
	}
	prof, ok := benchHead("bench largefile", *head, stderr)
	if !ok {
		return exitUsage
	}
	m, code := resolveDisk("bench largefile", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg := bench.LargefileConfig{Model: m, DiskBytes: *size << 20, FileBytes: *fileMiB << 20, IOBytes: *ioKiB << 10, Seed: *seed, Placements: ps, Head: prof}
	if *quick && !flagSet(fl, "file-mib") {
		cfg.FileBytes = 2 << 20
	}
	rep, err := bench.Largefile(cfg)
	if err != nil {
		return benchFailure("largefile", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
