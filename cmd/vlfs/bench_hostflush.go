package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchHostFlush is `vlfs bench hostflush`: what the host file system
// charges to make 4 KiB blocks durable (wall clock), the floor under every
// write+fsync figure of `vlfs bench peers`.
func runBenchHostFlush(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench hostflush", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", "", "host directory for the scratch file (default $TMPDIR); use the one bench peers --dir uses")
	fileMiB := fl.Int("file-mib", bench.DefaultHostFlushFileMiB, "scratch file size in MiB")
	samples := fl.Int("samples", bench.DefaultHostFlushSamples, "timed operations per pattern")
	seed := fl.Int64("seed", 1, "random seed for the write offsets")
	quick := fl.Bool("quick", false, "a smoke run: 100 samples in a 16 MiB file")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench hostflush [--dir DIR] [--file-mib N] [--samples N] [--seed S] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		*samples = quickSamples(fl, "samples", *samples, 100)
		*fileMiB = quickSamples(fl, "file-mib", *fileMiB, 16)
	}
	if *samples <= 0 || *fileMiB <= 0 {
		fmt.Fprintf(stderr, "vlfs bench hostflush: --samples and --file-mib must be positive, got %d and %d\n", *samples, *fileMiB)
		return exitUsage
	}
	rep, err := bench.HostFlush(bench.HostFlushConfig{Dir: *dir, FileMiB: *fileMiB, Samples: *samples, Seed: *seed, Progress: stderr})
	if err != nil {
		return benchFailure("hostflush", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
