package main

import (
	"flag"
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
	fl := flag.NewFlagSet("bench ranges", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "hpc2247a", "disk preset or model file")
	ops := fl.Int("ops", 0, fmt.Sprintf("measured operations per row (default %d, %d with --quick)", bench.DefaultRangesOps, bench.DefaultRangesQuickOps))
	quick := fl.Bool("quick", false, "fewer points and operations (CI)")
	figures := fl.String("figures", "", "comma-separated subset of "+strings.Join(bench.RangesFigures(), ","))
	sched := fl.String("scheduler", "hrs", "range scheduler for figures 4-7: hrs or ecs")
	ecsK := fl.Int("ecs-targets", 0, "ECS: expand each range into k equally spaced targets (0 = all)")
	wblocks := fl.Int("write-blocks", 1, "blocks (512 B) per request")
	seed := fl.Uint64("seed", 1, "random seed")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench ranges [--disk NAME|FILE] [--quick] [--figures LIST] [--scheduler hrs|ecs] [--ecs-targets K] [--ops N] [--write-blocks N] [--seed S] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	s, err := rangedisk.ParseScheduler(*sched)
	if fl.NArg() != 0 || err != nil || *ops < 0 || *ecsK < 0 || *wblocks < 1 {
		fl.Usage()
		return exitUsage
	}
	m, code := resolveDisk("bench ranges", *diskName, stderr)
	if m == nil {
		return code
	}
	cfg := bench.RangesConfig{Model: m, Ops: *ops, Seed: *seed, Quick: *quick, Scheduler: s,
		ECSTargets: *ecsK, WriteBlocks: *wblocks, Progress: stderr}
	if *figures != "" {
		cfg.Figures = strings.Split(*figures, ",")
		for _, f := range cfg.Figures {
			if !slices.Contains(bench.RangesFigures(), f) {
				fmt.Fprintf(stderr, "vlfs bench ranges: unknown figure %q (valid: %s)\n", f, strings.Join(bench.RangesFigures(), ","))
				return exitUsage
			}
		}
	}
	rep, err := bench.Ranges(cfg)
	if err != nil {
		return benchFailure("ranges", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
