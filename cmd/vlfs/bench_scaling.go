package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vlfs/vlfs/bench"
)

// runBenchScaling is `vlfs bench scaling`: issue 31's thread scaling,
// varmail and oltp at 1, 2, 4, 8 and 16 threads on every peer (wall).
func runBenchScaling(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench scaling", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "vlfs's disk preset or model file")
	dir := fl.String("dir", os.TempDir(), "work directory: images and the native target live here (one host file system)")
	targets := fl.String("targets", strings.Join(bench.PeerTargets(), ","), "comma-separated targets")
	threadList := fl.String("threads", "1,2,4,8,16", "client thread counts, comma-separated")
	duration := fl.Duration("duration", 6*time.Second, "time of each point (one workload at one thread count)")
	size := fl.String("size", "1GiB", "image size of fuse2fs and vlfs")
	loopback := fl.String("loopback", "", "vlfs-loopback binary (default: go build bench/loopback into bin/)")
	quick := fl.Bool("quick", false, "a smoke run: 1 and 4 threads, 1 s a point, 256 MiB images")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	quiet := fl.Bool("q", false, "no progress on stderr")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench scaling [--threads 1,2,4,8,16] [--duration 6s] [--targets native,fuse2fs,loopback,vlfs] [--size 1GiB] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 {
		fl.Usage()
		return exitUsage
	}
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["threads"] {
			*threadList = "1,4"
		}
		if !set["duration"] {
			*duration = time.Second
		}
		if !set["size"] {
			*size = "256MiB"
		}
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "vlfs bench scaling: %v\n", err)
		return exitUsage
	}
	threads, err := parseList(*threadList, nil, strconv.Atoi)
	if err != nil || len(threads) == 0 || slices.ContainsFunc(threads, func(n int) bool { return n < 1 }) {
		return fail(fmt.Errorf("--threads %q: positive counts, comma-separated", *threadList))
	}
	if *duration <= 0 {
		return fail(fmt.Errorf("--duration %v: must be positive", *duration))
	}
	sizes := bench.DefaultPeersSizes()
	if *quick {
		sizes = bench.QuickPeersSizes()
	}
	sizes.Duration = *duration
	if sizes.ImageBytes, err = parseSize(*size); err != nil {
		return fail(err)
	}
	cfg := bench.PeersConfig{DiskName: *diskName, WorkDir: *dir, Quick: *quick, Sizes: sizes, Logf: func(string, ...any) {}}
	if cfg.Targets, err = pickNames("targets", *targets, bench.PeerTargets()); err != nil {
		return fail(err)
	}
	m, code := resolveDisk("bench scaling", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg.Model = m
	if !*quiet {
		cfg.Logf = log.New(stderr, "", log.Ltime).Printf
	}
	if slices.Contains(cfg.Targets, bench.PeerLoopback) {
		cfg.Loopback, cfg.LoopbackWhy = findLoopback(*loopback, cfg.Logf)
	}
	rep, err := bench.RunScaling(cfg, threads)
	if err != nil {
		return benchFailure("scaling", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
