package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vlfs/vlfs/bench"
)

// runBenchFullness is `vlfs bench fullness`: issue 32's fullness bench,
// vlfs (compactor on and off) and the kernel's ext4 filled to 0-99 %,
// write+fsync, creates and unlinks per second and CPU per operation on the
// wall clock, update latency against formula (2) on the simulated clock.
func runBenchFullness(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench fullness", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "vlfs's disk preset or model file (and the simulated part's)")
	dir := fl.String("dir", os.TempDir(), "work directory: the images live here")
	targets := fl.String("targets", strings.Join(bench.FullnessTargets(), ","), "comma-separated targets")
	levelList := fl.String("levels", "0,50,80,90,95,99", "fullness levels in percent of the capacity statfs reports, comma-separated")
	size := fl.String("size", "1GiB", "each target's image size")
	duration := fl.Duration("duration", 5*time.Second, "time of each timed phase at each level")
	seed := fl.Int64("seed", 1, "seed of the fill's file sizes and of the simulated updates")
	simUpdates := fl.Int("sim-updates", 2000, "measured updates per simulated point")
	quick := fl.Bool("quick", false, "a smoke run: 256 MiB images, 1 s phases, 500 simulated updates")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	quiet := fl.Bool("q", false, "no progress on stderr")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench fullness [--levels 0,50,80,90,95,99] [--size 1GiB] [--duration 5s] [--targets vlfs-compactor-on,vlfs-compactor-off,ext4] [--seed N] [--quick] [--json]")
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
		quickDefault(fl, "size", size, "256MiB")
		quickDefault(fl, "duration", duration, time.Second)
		quickDefault(fl, "sim-updates", simUpdates, 500)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "vlfs bench fullness: %v\n", err)
		return exitUsage
	}
	pcts, err := parseList(*levelList, nil, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	if err != nil || len(pcts) == 0 {
		return fail(fmt.Errorf("--levels %q: percentages, comma-separated", *levelList))
	}
	if *duration <= 0 || *simUpdates <= 0 {
		return fail(fmt.Errorf("--duration %v and --sim-updates %d: must be positive", *duration, *simUpdates))
	}
	cfg := bench.FullnessConfig{DiskName: *diskName, WorkDir: *dir, Duration: *duration, Seed: *seed,
		SimUpdates: *simUpdates, Quick: *quick, Logf: func(string, ...any) {}}
	for _, p := range pcts {
		cfg.Levels = append(cfg.Levels, p/100)
	}
	if cfg.ImageBytes, err = parseSize(*size); err != nil {
		return fail(err)
	}
	if cfg.Targets, err = pickNames("targets", *targets, bench.FullnessTargets()); err != nil {
		return fail(err)
	}
	m, code := resolveDisk("bench fullness", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg.Model = m
	if !*quiet {
		cfg.Logf = log.New(stderr, "", log.Ltime).Printf
	}
	rep, err := bench.RunFullness(cfg)
	if err != nil {
		return benchFailure("fullness", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
