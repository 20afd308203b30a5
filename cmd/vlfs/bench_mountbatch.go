package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vlfs/vlfs/bench"
)

// runBenchMountBatch is `vlfs bench mountbatch`: read-priority write
// batching measured through a FUSE mount on the real-time clock, readers
// and writers as real threads, in scheduler modes cstar, segment and fifo.
func runBenchMountBatch(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench mountbatch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	writers := fl.String("writers", "1,2,4", "comma-separated loads: writer threads beside the one reader")
	modes := fl.String("modes", "cstar,segment,fifo", "comma-separated scheduler modes: "+strings.Join(bench.LiveModes(), ", "))
	dur := fl.Duration("duration", 0, "time per mode and load (default 10s; 2s with --quick)")
	dir := fl.String("dir", "", "where the image is made (default: the system's temporary directory)")
	seed := fl.Int64("seed", 1, "random seed of the reader's offsets")
	quick := fl.Bool("quick", false, "a small run: 2 s a point, 1 and 2 writers, a 16 MiB read file")
	profile := fl.String("profile", "", "write mutex.pprof and block.pprof of the run into this directory")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench mountbatch [--disk NAME|FILE] [--writers 1,2,4] [--modes cstar,segment,fifo] [--duration D] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	m, code := resolveDisk("bench mountbatch", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg := bench.MountBatchConfig{}
	if *quick {
		cfg = bench.QuickMountBatchConfig()
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["writers"] || !*quick {
		cfg.Writers = nil
		for _, w := range splitList(*writers) {
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 {
				fmt.Fprintf(stderr, "vlfs bench mountbatch: --writers: %q is not a count of threads\n", w)
				return exitUsage
			}
			cfg.Writers = append(cfg.Writers, n)
		}
	}
	if *dur < 0 {
		fmt.Fprintf(stderr, "vlfs bench mountbatch: --duration must be positive, got %v\n", *dur)
		return exitUsage
	}
	if *dur > 0 {
		cfg.Duration = *dur
	}
	cfg.Model, cfg.Modes, cfg.Dir, cfg.Seed, cfg.ProfileDir, cfg.Progress = m, splitList(*modes), *dir, *seed, *profile, stderr
	rep, err := bench.MountBatch(cfg)
	if errors.Is(err, bench.ErrBadConfig) {
		fmt.Fprintf(stderr, "vlfs bench mountbatch: %v\n", err)
		return exitUsage
	}
	if err != nil {
		return benchFailure("mountbatch", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
