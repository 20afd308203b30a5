package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
)

// runBenchIdle is `vlfs bench idle`: Figure 11 of the virtual-log paper,
// bursts of synchronous updates at 80 % separated by idle intervals, with
// and without the idle-time compactor.
func runBenchIdle(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("idle", "[--disk LIST] [--disk-mib N] [--utilization U] [--burst-kb LIST] [--idle-ms LIST] [--updates N] [--policy P] [--step-blocks N] [--settle-blocks N] [--commit-each-step] [--target-empty F] [--idle-delay-ms MS] [--start predicted|always] [--seed S] [--placement LIST] [--clean-policy P] [--head sim|profile:FILE] [--log-window F] [--quick] [--json]", stdout, stderr)
	// Not b.disk: a list, resolved name by name below (after --quick).
	disks := b.fl.String("disk", "st19101,hp97560", "comma-separated disk presets or model files")
	size := b.diskMiB(128, "simulated disk region in MiB")
	updates := b.updates(2048, "updates measured per point (and as many before measuring)")
	seed := b.seed(seedUsage)
	quick := b.quick("st19101 only (unless --disk), 32 MiB, bursts 128 and 1024 KiB, idle 0, 20, 200 ms, 512 updates (flags given explicitly win)")
	b.placement("eager,lfs", "placements to run: eager (the VLD, compactor off and on), lfs (the classic-LFS baseline with its cleaner), or both", []vld.Placement{vld.PlaceEager, vld.PlaceLFS})
	b.headFlag(headUsage + "; a profile needs a --disk of one disk")
	b.cleanPolicy()
	util := b.fl.Float64("utilization", 0.8, "fraction of the logical disk the updated file fills")
	bursts := b.fl.String("burst-kb", "", "comma-separated burst sizes in KiB (default 128,256,512,1024,2048)")
	idles := b.fl.String("idle-ms", "", "comma-separated idle intervals in simulated ms (default 0,5,10,20,50,100,200,500,1000)")
	policy := b.fl.String("policy", "cost-benefit", "compactor source choice: cost-benefit or random")
	step := b.fl.Int("step-blocks", compactor.DefaultStepBlocks, "blocks per compaction step")
	eachStep := b.fl.Bool("commit-each-step", false, "the file system's compactor commits every step (for comparison)")
	settle := b.fl.Int("settle-blocks", 0, "the compactor commits at the end of the first source track after this many blocks moved (1: every source track; 0: each target's default, 32 for vlfs, 1 for the logical disk)")
	target := b.fl.Float64("target-empty", compactor.DefaultTargetEmpty, "fraction of tracks the compactor keeps empty")
	delay := b.fl.Float64("idle-delay-ms", compactor.DefaultIdleDelayMs, "quiet time before the compactor starts (simulated ms)")
	start := b.fl.String("start", "predicted", "when a compaction step may start: predicted (only if the predicted idle time leaves room) or always")
	fsRows := b.fl.Bool("vlfs", true, "also run the file system (system vlfs) beside the logical disk")
	window := b.fl.Float64("log-window", 0, "the volumes' log window as a fraction of the disk's tracks (0: the default, 1/16); a larger one lets the compactor and synchronous writes use empty tracks anywhere in it, and costs every unclean mount a longer scan (docs/compactor.md)")
	if !b.parse(args) {
		return exitUsage
	}
	if *size <= 0 || *updates <= 0 {
		b.fl.Usage()
		return exitUsage
	}
	cfg := bench.IdleConfig{DiskBytes: *size << 20, Utilization: *util, Updates: *updates, Seed: *seed, Progress: stderr, VLFS: *fsRows, LogWindow: *window,
		Placements: b.places, CleanPolicy: b.cleaner, Head: b.head}
	var err error
	if cfg.Compactor.Policy, err = compactor.ParsePolicy(*policy); err != nil {
		return b.usageErr("%v", err)
	}
	if cfg.Compactor.Start, err = compactor.ParseStart(*start); err != nil {
		return b.usageErr("%v", err)
	}
	cfg.Compactor.StepBlocks, cfg.Compactor.TargetEmpty, cfg.Compactor.IdleDelayMs = *step, *target, *delay
	cfg.Compactor.CommitEachStep, cfg.Compactor.SettleBlocks = *eachStep, *settle
	if *quick {
		// Smaller defaults; a flag given explicitly (--disk above all:
		// a profile belongs to one disk) keeps its value.
		if !b.set("disk") {
			*disks = "st19101"
		}
		cfg.DiskBytes = int64(quickSamples(b.fl, "disk-mib", int(*size), 32)) << 20
		cfg.Updates = quickSamples(b.fl, "updates", *updates, 512)
		cfg.BurstKB, cfg.IdleMs = []int{128, 1024}, []float64{0, 20, 200}
	}
	if cfg.Head != nil && strings.Contains(*disks, ",") {
		return b.usageErr("--head profile:FILE needs --disk of one disk (a profile is measured on one disk)")
	}
	if cfg.BurstKB, err = parseList(*bursts, cfg.BurstKB, strconv.Atoi); err == nil {
		cfg.IdleMs, err = parseList(*idles, cfg.IdleMs, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) })
	}
	if err == nil {
		err = checkIdleParams(cfg)
	}
	if err != nil {
		return b.usageErr("%v", err)
	}
	for _, name := range strings.Split(*disks, ",") {
		m, code := resolveDisk(b.cmd(), strings.TrimSpace(name), stderr)
		if m == nil {
			return code
		}
		cfg.Models = append(cfg.Models, m)
	}
	rep, err := bench.Idle(cfg)
	return b.report(rep, err)
}

// parseList reads a comma-separated list; an empty string keeps def.
func parseList[T any](s string, def []T, parse func(string) (T, error)) ([]T, error) {
	if s == "" {
		return def, nil
	}
	var out []T
	for _, f := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", s, disk.ErrBadParameter)
		}
		out = append(out, v)
	}
	return out, nil
}

// checkIdleParams rejects values the benchmark cannot run with.
func checkIdleParams(cfg bench.IdleConfig) error {
	if !(cfg.Utilization > 0 && cfg.Utilization < 1) {
		return fmt.Errorf("utilization %v: must be in (0, 1): %w", cfg.Utilization, disk.ErrBadParameter)
	}
	for _, b := range cfg.BurstKB {
		if b < 4 || b%4 != 0 {
			return fmt.Errorf("burst of %d KiB: must be a positive multiple of 4: %w", b, disk.ErrBadParameter)
		}
	}
	for _, ms := range cfg.IdleMs {
		if !(ms >= 0) {
			return fmt.Errorf("idle interval %v ms: must be >= 0: %w", ms, disk.ErrBadParameter)
		}
	}
	if !(cfg.LogWindow >= 0 && cfg.LogWindow <= 1) {
		return fmt.Errorf("--log-window %v: must be a fraction in (0, 1], or 0 for the default: %w", cfg.LogWindow, disk.ErrBadParameter)
	}
	return nil
}
