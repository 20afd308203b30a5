package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchSmallfile is `vlfs bench smallfile`: Figure 6 of the virtual-log
// paper, small-file create, read and delete on vlfs for each placement.
func runBenchSmallfile(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("smallfile", "[--disk NAME|FILE] [--disk-mib N] [--files N] [--file-bytes N] [--placement all|LIST] [--head sim|profile:FILE] [--quick] [--json]", stdout, stderr)
	size := b.placedImage()
	quick := b.quick("300 files")
	files := b.fl.Int("files", 1500, "number of files")
	fileBytes := b.fl.Int("file-bytes", 1024, "bytes per file")
	if !b.parse(args) {
		return exitUsage
	}
	if *size <= 0 || *files <= 0 || *fileBytes <= 0 {
		b.fl.Usage()
		return exitUsage
	}
	cfg := bench.SmallfileConfig{Model: b.model, DiskBytes: *size << 20, Files: *files, FileBytes: *fileBytes, Placements: b.places, Head: b.head}
	if *quick {
		cfg.Files = quickSamples(b.fl, "files", *files, 300)
	}
	rep, err := bench.Smallfile(cfg)
	return b.report(rep, err)
}
