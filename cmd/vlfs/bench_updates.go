package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
)

// runBenchUpdates is `vlfs bench updates`: Figure 8 of the virtual-log
// paper, eager placement against update-in-place and LFS on one simulated
// disk, and the file system on the eager VLD beside them (the vlfs row).
func runBenchUpdates(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("updates", "[--disk NAME|FILE] [--disk-mib N] [--updates N] [--seed S] [--seeds N] [--placement all|LIST] [--fs-version N] [--clean-policy cost-benefit|greedy] [--head sim|profile:FILE] [--pieces block|sector] [--quick] [--json]", stdout, stderr)
	b.disk("st19101", diskModelUsage)
	size := b.diskMiB(128, "simulated disk region in MiB")
	updates := b.updates(2000, "measured updates per point")
	seed := b.seed(seedUsage)
	seeds := b.seeds()
	quick := b.quick("utilisations 0.5 and 0.8 only, 500 updates")
	rows := b.vlfsRows("all", "placements to run: all (inplace, eager, lfs, and vlfs: the file system on the eager VLD), or a list of them")
	b.cleanPolicy()
	b.headFlag("eager placement's head model: sim (the simulator's own) or profile:FILE (vlfs profile)")
	sector := b.pieces()
	if !b.parse(args) {
		return exitUsage
	}
	if *size <= 0 || *updates <= 0 {
		b.fl.Usage()
		return exitUsage
	}
	cfg := bench.UpdatesConfig{Model: b.model, DiskBytes: *size << 20, Updates: *updates, Seed: *seed, Seeds: *seeds, Placements: rows.placements, CleanPolicy: b.cleaner, Head: b.head,
		VLFS: rows.vlfs, FSVersion: rows.version, SectorPieces: *sector}
	if *quick {
		cfg.Utilizations, cfg.Updates = []float64{0.5, 0.8}, quickSamples(b.fl, "updates", *updates, 500)
	}
	rep, err := bench.Updates(cfg)
	return updatesReport(b, rep, err)
}
