package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld/disk"
)

// runBenchBreakdown is `vlfs bench breakdown`: Table 2 and Figure 9 of the
// virtual-log paper, with the file system on the eager VLD (the vlfs row)
// beside the logical disk by default.
func runBenchBreakdown(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("breakdown", "[--utilization U] [--updates N] [--disk-mib N] [--seed S] [--seeds N] [--placement LIST] [--fs-version N] [--compacted] [--disk NAME|FILE] [--head sim|profile:FILE] [--pieces block|sector] [--quick] [--json]", stdout, stderr)
	b.optionalDisk("one disk preset or model file (default: hp97560 and st19101)")
	size := b.diskMiB(128, "simulated disk region in MiB")
	updates := b.updates(2000, "measured updates per disk and placement")
	seed := b.seed(seedUsage)
	seeds := b.seeds()
	quick := b.quick("a smoke run: 32 MiB region, 300 updates")
	rows := b.vlfsRows("inplace,eager,vlfs", "placements to run: a list of inplace, eager, lfs, vlfs (the file system on the eager VLD), or all")
	b.headFlag("eager placement's head model: sim or profile:FILE (needs --disk: a profile belongs to one disk)")
	util := b.fl.Float64("utilization", 0.8, "fraction of the disk the updated file fills")
	compacted := b.fl.Bool("compacted", false, "measure eager right after a compactor run (the paper's Table 2, footnote 1 of section 5.4)")
	sector := b.pieces()
	if !b.parse(args) {
		return exitUsage
	}
	if *updates <= 0 || *size <= 0 {
		b.fl.Usage()
		return exitUsage
	}
	if *quick {
		*size = int64(quickSamples(b.fl, "disk-mib", int(*size), 32))
		*updates = quickSamples(b.fl, "updates", *updates, 300)
	}
	cfg := bench.BreakdownConfig{Utilization: *util, Updates: *updates, DiskBytes: *size << 20, Seed: *seed, Seeds: *seeds, Placements: rows.placements, Compacted: *compacted,
		VLFS: rows.vlfs, FSVersion: rows.version, Head: b.head, SectorPieces: *sector}
	if b.model != nil {
		cfg.Models = []*disk.Model{b.model}
	} else if b.head != nil {
		return b.usageErr("--head profile:FILE needs --disk (a profile is measured on one disk)")
	}
	rep, err := bench.Breakdown(cfg)
	return updatesReport(b, rep, err)
}
