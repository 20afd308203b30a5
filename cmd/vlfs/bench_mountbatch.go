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
	loads := fl.String("loads", "A,B,C,D,S2", "comma-separated loads: the paper's A-D (open: Poisson reads and writes), Sn (closed: one reader, n streaming writers)")
	modes := fl.String("modes", "cstar,segment,fifo", "comma-separated scheduler modes: "+strings.Join(bench.LiveModes(), ", "))
	dur := fl.Duration("duration", 0, "time per mode and load (default 20s; 2s with --quick)")
	dir := fl.String("dir", "", "where the image is made (default: the system's temporary directory)")
	seed := fl.Int64("seed", 1, "random seed of the reader's offsets")
	period := fl.Float64("period-ms", 5000, "open loads: the writer fsyncs every this many ms (the paper's update interval, shortened)")
	quick := fl.Bool("quick", false, "a small run: 2 s a point, loads A and S2, a 16 MiB read file")
	profile := fl.String("profile", "", "write mutex.pprof and block.pprof of the run into this directory")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench mountbatch [--disk NAME|FILE] [--loads A,B,C,D,S2] [--modes cstar,segment,fifo] [--duration D] [--quick] [--json]")
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
	if set["loads"] || !*quick {
		ls, err := parseMountLoads(*loads)
		if err != nil {
			fmt.Fprintf(stderr, "vlfs bench mountbatch: --loads: %v\n", err)
			return exitUsage
		}
		cfg.Loads = ls
	}
	cfg.PeriodMs = *period
	if *dur < 0 || !(*period > 0) {
		fmt.Fprintf(stderr, "vlfs bench mountbatch: --duration and --period-ms must be positive, got %v and %v\n", *dur, *period)
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

// parseMountLoads reads --loads: names of the paper's loads, or Sn for a
// closed load of n streaming writers.
func parseMountLoads(s string) ([]bench.MountLoad, error) {
	paper := map[string]bench.MountLoad{}
	for _, l := range bench.MountLoads() {
		paper[l.Name] = l
	}
	var out []bench.MountLoad
	for _, name := range splitList(s) {
		if l, ok := paper[name]; ok && l.Writers == 0 {
			out = append(out, l)
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(name, "S"))
		if !strings.HasPrefix(name, "S") || err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is neither a load of the paper (A-D) nor Sn (n streaming writers)", name)
		}
		out = append(out, bench.MountLoad{Name: name, Writers: n})
	}
	return out, nil
}
