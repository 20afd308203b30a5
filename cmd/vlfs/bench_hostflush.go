package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchHostFlush is `vlfs bench hostflush`: what the host file system
// charges to make 4 KiB blocks durable (wall clock), the floor under every
// write+fsync figure of `vlfs bench peers`.
func runBenchHostFlush(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("hostflush", "[--dir DIR] [--file-mib N] [--samples N] [--seed S] [--quick] [--json]", stdout, stderr)
	dir := b.dir("", "host directory for the scratch file (default $TMPDIR); use the one bench peers --dir uses")
	seed := b.seed("random seed for the write offsets")
	quick := b.quick("a smoke run: 100 samples in a 16 MiB file")
	fileMiB := b.fl.Int("file-mib", bench.DefaultHostFlushFileMiB, "scratch file size in MiB")
	samples := b.fl.Int("samples", bench.DefaultHostFlushSamples, "timed operations per pattern")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		*samples = quickSamples(b.fl, "samples", *samples, 100)
		*fileMiB = quickSamples(b.fl, "file-mib", *fileMiB, 16)
	}
	if *samples <= 0 || *fileMiB <= 0 {
		return b.usageErr("--samples and --file-mib must be positive, got %d and %d", *samples, *fileMiB)
	}
	rep, err := bench.HostFlush(bench.HostFlushConfig{Dir: *dir, FileMiB: *fileMiB, Samples: *samples, Seed: *seed, Progress: stderr})
	return b.report(rep, err)
}
