package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// runBenchRanges is `vlfs bench ranges`: Figures 4-8 of the range-writes
// paper on the simulated HP C2247A with a queueing disk.
func runBenchRanges(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("ranges", "[--disk NAME|FILE] [--quick] [--figures LIST] [--scheduler hrs|ecs] [--ecs-targets K] [--ops N] [--write-blocks N] [--seed S] [--json]", stdout, stderr)
	b.disk("hpc2247a", diskModelUsage)
	quick := b.quick("fewer points and operations (CI)")
	// Not b.seed: this one has always been unsigned, as bench.RangesConfig's.
	seed := b.fl.Uint64("seed", 1, seedUsage)
	ops := b.fl.Int("ops", 0, fmt.Sprintf("measured operations per row (default %d, %d with --quick)", bench.DefaultRangesOps, bench.DefaultRangesQuickOps))
	figures := b.fl.String("figures", "", "comma-separated subset of "+strings.Join(bench.RangesFigures(), ","))
	sched := b.fl.String("scheduler", "hrs", "range scheduler for figures 4-7: hrs or ecs")
	ecsK := b.fl.Int("ecs-targets", 0, "ECS: expand each range into k equally spaced targets (0 = all)")
	wblocks := b.fl.Int("write-blocks", 1, "blocks (512 B) per request")
	if !b.parse(args) {
		return exitUsage
	}
	s, err := rangedisk.ParseScheduler(*sched)
	if err != nil || *ops < 0 || *ecsK < 0 || *wblocks < 1 {
		b.fl.Usage()
		return exitUsage
	}
	cfg := bench.RangesConfig{Model: b.model, Ops: *ops, Seed: *seed, Quick: *quick, Scheduler: s,
		ECSTargets: *ecsK, WriteBlocks: *wblocks, Progress: stderr}
	if *figures != "" {
		cfg.Figures = strings.Split(*figures, ",")
		for _, f := range cfg.Figures {
			if !slices.Contains(bench.RangesFigures(), f) {
				return b.usageErr("unknown figure %q (valid: %s)", f, strings.Join(bench.RangesFigures(), ","))
			}
		}
	}
	rep, err := bench.Ranges(cfg)
	return b.report(rep, err)
}
