package main

import (
	"errors"
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
	b := newBenchFlags("mountbatch", "[--disk NAME|FILE] [--loads A,B,C,D,S2,A-ip,B-ip,C-ip,D-ip] [--modes cstar,segment,fifo] [--duration D] [--quick] [--json]", stdout, stderr)
	b.disk("st19101", diskModelUsage)
	dir := b.dir("", "where the image is made (default: the system's temporary directory)")
	seed := b.seed("random seed of the reader's offsets")
	quick := b.quick("a small run: 2 s a point, loads A, S2 and A-ip, a 16 MiB read file")
	loads := b.fl.String("loads", "A,B,C,D,S2,A-ip,B-ip,C-ip,D-ip", "comma-separated loads: the paper's A-D (open: Poisson reads and appends), Sn (closed: one reader, n streaming writers), A-ip to D-ip (A-D on an image placing in place, the writer overwriting random blocks)")
	modes := b.fl.String("modes", "cstar,segment,fifo", "comma-separated scheduler modes: "+strings.Join(bench.LiveModes(), ", "))
	dur := b.fl.Duration("duration", 0, "time per mode and load (default 20s; 2s with --quick)")
	period := b.fl.Float64("period-ms", 5000, "open loads: the writer fsyncs every this many ms (the paper's update interval, shortened)")
	profile := b.fl.String("profile", "", "write mutex.pprof and block.pprof of the run into this directory")
	if !b.parse(args) {
		return exitUsage
	}
	cfg := bench.MountBatchConfig{}
	if *quick {
		cfg = bench.QuickMountBatchConfig()
	}
	if b.set("loads") || !*quick {
		ls, err := parseMountLoads(*loads)
		if err != nil {
			return b.usageErr("--loads: %v", err)
		}
		cfg.Loads = ls
	}
	cfg.PeriodMs = *period
	if *dur < 0 || !(*period > 0) {
		return b.usageErr("--duration and --period-ms must be positive, got %v and %v", *dur, *period)
	}
	if *dur > 0 {
		cfg.Duration = *dur
	}
	cfg.Model, cfg.Modes, cfg.Dir, cfg.Seed, cfg.ProfileDir, cfg.Progress = b.model, splitList(*modes), *dir, *seed, *profile, stderr
	rep, err := bench.MountBatch(cfg)
	if errors.Is(err, bench.ErrBadConfig) {
		return b.usageErr("%v", err)
	}
	return b.report(rep, err)
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
			return nil, fmt.Errorf("%q is neither a load of the paper (A-D, or A-ip to D-ip in place) nor Sn (n streaming writers)", name)
		}
		out = append(out, bench.MountLoad{Name: name, Writers: n})
	}
	return out, nil
}
