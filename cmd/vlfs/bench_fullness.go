package main

import (
	"io"
	"os"
	"strconv"
	"time"

	"github.com/vlfs/vlfs/bench"
)

// runBenchFullness is `vlfs bench fullness`: issue 32's fullness bench,
// vlfs (compactor on and off) and the kernel's ext4 filled to 0-99 %,
// write+fsync, creates and unlinks per second and CPU per operation on the
// wall clock, update latency against formula (2) on the simulated clock.
func runBenchFullness(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("fullness", "[--levels 0,50,80,90,95,99] [--size 1GiB] [--duration 5s] [--targets vlfs-compactor-on,vlfs-compactor-off,ext4] [--seed N] [--quick] [--json]", stdout, stderr)
	diskName := b.disk("st19101", "vlfs's "+diskModelUsage+" (and the simulated part's)")
	dir := b.dir(os.TempDir(), "work directory: the images live here")
	targets := b.targets(bench.FullnessTargets())
	seed := b.seed("seed of the fill's file sizes and of the simulated updates")
	quick := b.quick("a smoke run: 256 MiB images, 1 s phases, 500 simulated updates")
	quiet := b.quiet()
	levelList := b.fl.String("levels", "0,50,80,90,95,99", "fullness levels in percent of the capacity statfs reports, comma-separated")
	size := b.fl.String("size", "1GiB", "each target's image size")
	duration := b.fl.Duration("duration", 5*time.Second, "time of each timed phase at each level")
	simUpdates := b.fl.Int("sim-updates", 2000, "measured updates per simulated point")
	if !b.parse(args) {
		return exitUsage
	}
	if *quick {
		quickDefault(b.fl, "size", size, "256MiB")
		quickDefault(b.fl, "duration", duration, time.Second)
		quickDefault(b.fl, "sim-updates", simUpdates, 500)
	}
	pcts, err := parseList(*levelList, nil, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil || len(pcts) == 0 {
		return b.usageErr("--levels %q: percentages, comma-separated", *levelList)
	}
	if *duration <= 0 || *simUpdates <= 0 {
		return b.usageErr("--duration %v and --sim-updates %d: must be positive", *duration, *simUpdates)
	}
	cfg := bench.FullnessConfig{DiskName: *diskName, WorkDir: *dir, Duration: *duration, Seed: *seed,
		SimUpdates: *simUpdates, Quick: *quick, Model: b.model}
	for _, p := range pcts {
		cfg.Levels = append(cfg.Levels, p/100)
	}
	if cfg.ImageBytes, err = parseSize(*size); err != nil {
		return b.usageErr("%v", err)
	}
	if cfg.Targets, err = pickNames("targets", *targets, bench.FullnessTargets()); err != nil {
		return b.usageErr("%v", err)
	}
	cfg.Logf = b.logf(*quiet)
	rep, err := bench.RunFullness(cfg)
	return b.report(rep, err)
}
