package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchLargefile is `vlfs bench largefile`: Figure 7 of the virtual-log
// paper, one large file written and read sequentially and at random, on
// vlfs for each placement.
func runBenchLargefile(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("largefile", "[--disk NAME|FILE] [--disk-mib N] [--file-mib N] [--io-kib N] [--seed S] [--placement all|LIST] [--head sim|profile:FILE] [--quick] [--json]", stdout, stderr)
	size := b.placedImage()
	seed := b.seed(seedUsage)
	quick := b.quick("a 2 MiB file")
	fileMiB := b.fl.Int64("file-mib", 10, "file size in MiB")
	ioKiB := b.fl.Int("io-kib", 64, "sequential request size in KiB (random I/O is 4 KiB)")
	if !b.parse(args) {
		return exitUsage
	}
	if *size <= 0 || *fileMiB <= 0 || *ioKiB <= 0 || *fileMiB >= *size {
		b.fl.Usage()
		return exitUsage
	}
	cfg := bench.LargefileConfig{Model: b.model, DiskBytes: *size << 20, FileBytes: *fileMiB << 20, IOBytes: *ioKiB << 10, Seed: *seed, Placements: b.places, Head: b.head}
	if *quick && !b.set("file-mib") {
		cfg.FileBytes = 2 << 20
	}
	rep, err := bench.Largefile(cfg)
	return b.report(rep, err)
}
