package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchSmallfile is `vlfs bench smallfile`: Figure 6 of the virtual-log
// paper, small-file create, read and delete on vlfs for each placement.
func runBenchSmallfile(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench smallfile", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	size := fl.Int64("disk-mib", 128, "simulated disk (image) size in MiB")
	files := fl.Int("files", 1500, "number of files")
	fileBytes := fl.Int("file-bytes", 1024, "bytes per file")
	place := fl.String("placement", "all", "placements to run: all, or a list of eager, inplace, lfs")
	quick := fl.Bool("quick", false, "300 files")
	head := fl.String("head", "sim", headUsage)
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench smallfile [--disk NAME|FILE] [--disk-mib N] [--files N] [--file-bytes N] [--placement all|LIST] [--head sim|profile:FILE] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 || *size <= 0 || *files <= 0 || *fileBytes <= 0 {
		fl.Usage()
		return exitUsage
	}
	ps, ok := parsePlacements("bench smallfile", *place, bench.Placements, stderr)
	if !ok {
		return exitUsage
	}
	prof, ok := benchHead("bench smallfile", *head, stderr)
	if !ok {
		return exitUsage
	}
	m, code := resolveDisk("bench smallfile", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg := bench.SmallfileConfig{Model: m, DiskBytes: *size << 20, Files: *files, FileBytes: *fileBytes, Placements: ps, Head: prof}
	if *quick {
		cfg.Files = quickSamples(fl, "files", *files, 300)
	}
	rep, err := bench.Smallfile(cfg)
	if err != nil {
		return benchFailure("smallfile", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
