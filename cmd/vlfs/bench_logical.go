package main

import (
	"errors"
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
	b := newBenchFlags("logical", "[--disk NAME|FILE] [--disk-mib N] [--writes N] [--utilizations 0.5,0.8] [--upper kernel|fuse2fs] [--driver fio|go] [--clock virtual|real] [--head sim|profile:FILE] [--no-layers] [--quick] [--json]", stdout, stderr)
	b.disk("st19101", diskModelUsage)
	size := b.diskMiB(256, "simulated disk region (VLD image) in MiB")
	seed := b.seed(seedUsage)
	quick := b.quick("64 MiB region, 200 writes (flags given explicitly win)")
	b.headFlag(headUsage)
	writes := b.fl.Int("writes", 1000, "measured synchronous writes per point")
	warmup := b.fl.Int("warmup", 0, "writes before measuring (default: as many as measured)")
	utils := b.fl.String("utilizations", "0.5,0.8", "comma-separated file size / disk size")
	upper := b.fl.String("upper", "", "kernel (ext4 over a loop device; needs root) or fuse2fs (default: kernel if it works)")
	driver := b.fl.String("driver", "", "fio or go (default: fio if installed)")
	sync := b.fl.String("sync", "fsync", "fsync (fio fsync=1) or fdatasync")
	clock := b.fl.String("clock", "virtual", "VLD clock for the measured writes: virtual (no wall time) or real (each request sleeps its service time, as in the paper)")
	noLayers := b.fl.Bool("no-layers", false, "skip the wall-clock layer baselines")
	verbose := b.fl.Bool("v", false, "log progress to stderr")
	if !b.parse(args) {
		return exitUsage
	}
	us, err := parseFloats(*utils)
	if *size <= 0 || *writes <= 0 || err != nil {
		if err != nil {
			fmt.Fprintf(stderr, "vlfs bench logical: --utilizations: %v\n", err)
		}
		b.fl.Usage()
		return exitUsage
	}
	if *clock != "virtual" && *clock != "real" {
		return b.usageErr("--clock %q: want virtual or real", *clock)
	}
	cfg := bench.LogicalConfig{Model: b.model, DiskBytes: *size << 20, Writes: *writes, Warmup: *warmup, Utilizations: us,
		Seed: *seed, Upper: *upper, Driver: *driver, Sync: *sync, NoLayers: *noLayers, Head: b.head}
	if *clock == "real" {
		cfg.Clock = vld.ClockReal
	}
	if *quick {
		cfg.DiskBytes = int64(quickSamples(b.fl, "disk-mib", int(*size), 64)) << 20
		cfg.Writes = quickSamples(b.fl, "writes", *writes, 200)
	}
	if *verbose {
		cfg.Logf = log.New(stderr, "bench logical: ", log.Ltime).Printf
	}
	rep, err := bench.Logical(cfg)
	if errors.Is(err, bench.ErrUnavailable) {
		fmt.Fprintf(stderr, "vlfs bench logical: %v\n", err)
		return exitFailure
	}
	return b.report(rep, err)
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
