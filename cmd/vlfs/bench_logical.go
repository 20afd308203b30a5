package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"strconv"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld"
)

// runBenchLogical is `vlfs bench logical`: random synchronous 4 KiB updates
// inside ext4 (or fuse2fs) on an exported logical disk, eager against in
// place (the virtual-log paper's Table 2), plus the wall-clock cost of
// each layer.
func runBenchLogical(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench logical", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	size := fl.Int64("disk-mib", 256, "simulated disk region (VLD image) in MiB")
	writes := fl.Int("writes", 1000, "measured synchronous writes per point")
	warmup := fl.Int("warmup", 0, "writes before measuring (default: as many as measured)")
	utils := fl.String("utilizations", "0.5,0.8", "comma-separated file size / disk size")
	upper := fl.String("upper", "", "kernel (ext4 over a loop device; needs root) or fuse2fs (default: kernel if it works)")
	driver := fl.String("driver", "", "fio or go (default: fio if installed)")
	sync := fl.String("sync", "fsync", "fsync (fio fsync=1) or fdatasync")
	clock := fl.String("clock", "virtual", "VLD clock for the measured writes: virtual (no wall time) or real (each request sleeps its service time, as in the paper)")
	noLayers := fl.Bool("no-layers", false, "skip the wall-clock layer baselines")
	seed := fl.Int64("seed", 1, "random seed")
	quick := fl.Bool("quick", false, "64 MiB region, 200 writes (flags given explicitly win)")
	verbose := fl.Bool("v", false, "log progress to stderr")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	head := fl.String("head", "sim", headUsage)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench logical [--disk NAME|FILE] [--disk-mib N] [--writes N] [--utilizations 0.5,0.8] [--upper kernel|fuse2fs] [--driver fio|go] [--clock virtual|real] [--head sim|profile:FILE] [--no-layers] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	us, err := parseFloats(*utils)
	if fl.NArg() != 0 || *size <= 0 || *writes <= 0 || err != nil {
		if err != nil {
			fmt.Fprintf(stderr, "vlfs bench logical: --utilizations: %v\n", err)
		}
		fl.Usage()
		return exitUsage
	}
	if *clock != "virtual" && *clock != "real" {
		fmt.Fprintf(stderr, "vlfs bench logical: --clock %q: want virtual or real\n", *clock)
		return exitUsage
	}
	prof, ok := benchHead("bench logical", *head, stderr)
	if !ok {
		return exitUsage
	}
	m, code := resolveDisk("bench logical", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg := bench.LogicalConfig{Model: m, DiskBytes: *size << 20, Writes: *writes, Warmup: *warmup, Utilizations: us,
		Seed: *seed, Upper: *upper, Driver: *driver, Sync: *sync, NoLayers: *noLayers, Head: prof}
	if *clock == "real" {
		cfg.Clock = vld.ClockReal
	}
	if *quick {
		cfg.DiskBytes = int64(quickSamples(fl, "disk-mib", int(*size), 64)) << 20
		cfg.Writes = quickSamples(fl, "writes", *writes, 200)
	}
	if *verbose {
		cfg.Logf = log.New(stderr, "bench logical: ", log.Ltime).Printf
	}
	rep, err := bench.Logical(cfg)
	if errors.Is(err, bench.ErrUnavailable) {
		fmt.Fprintf(stderr, "vlfs bench logical: %v\n", err)
		return exitFailure
	}
	if err != nil {
		return benchFailure("logical", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}

// parseFloats reads "0.5,0.8".
func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, v)
	}
	return out, nil
}
