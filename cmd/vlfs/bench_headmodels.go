package main

import (
	"io"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/vld/profile"
)

// runBenchHeadModels is `vlfs bench headmodels`: the oracle, profiled
// (Bark) and no head models of issue 8. --workload updates is the
// validation (random synchronous updates, simulated clock), journal the
// log-skipping demonstration (synchronous appends with think time,
// simulated clock), host the flat profile of the host's own file and the
// VLD on it (wall clock), sqlite the demonstration on a real mount (SQLite
// with synchronous=FULL and think time, real-time clock, wall clock),
// profile one profile's cells as rows (the plot's data: sim:DISK measured
// with bench.PlotGrid, or the --head profile).
func runBenchHeadModels(args []string, stdout, stderr io.Writer) int {
	b := newBenchFlags("headmodels", "[--disk NAME|FILE] [--workload updates|journal|host|sqlite|profile] [--head profile:FILE] [--disk-mib N] [--updates N] [--seed S] [--seeds N] [--dir DIR] [--quick] [--json]", stdout, stderr)
	b.disk("st19101", diskModelUsage)
	size := b.diskMiB(0, "disk region in MiB (default 128; journal 32; host and sqlite 64)")
	updates := b.updates(2000, "measured updates (or transactions) per row (sqlite: default 400)")
	seed := b.seed(seedUsage)
	dir := b.dir("", "host, sqlite: directory for the image and profile files (default: the system's temporary directory)")
	quick := b.quick("a smoke run: 32 MiB region (host: 16 MiB), 300 updates, one seed")
	// Not b.headFlag: no sim here, the head models are the rows, and a
	// profile given replaces the one measured.
	head := b.fl.String("head", "", "profile:FILE: use this profile instead of measuring one")
	workload := b.fl.String("workload", "updates", "updates, journal, host, sqlite or profile")
	seeds := b.fl.Int("seeds", 1, "updates: average over this many seeds (seed, seed+1, ...)")
	if !b.parse(args) {
		return exitUsage
	}
	if *size < 0 || *updates <= 0 || *seeds <= 0 {
		b.fl.Usage()
		return exitUsage
	}
	if *quick {
		small := 32
		if *workload == "host" || *workload == "sqlite" {
			small = 16
		}
		*size = int64(quickSamples(b.fl, "disk-mib", int(*size), small))
		*updates = quickSamples(b.fl, "updates", *updates, map[bool]int{true: 100, false: 300}[*workload == "sqlite"])
		*seeds = quickSamples(b.fl, "seeds", *seeds, 1)
	}
	m := b.model
	var prof *profile.Profile
	if *head != "" {
		p, err := parseHead(*head)
		if err != nil || p == nil {
			return b.usageErr("--head %q: want profile:FILE (%v)", *head, err)
		}
		prof = p
	}
	var rep *bench.Report
	var err error
	switch *workload {
	case "updates":
		rep, err = bench.HeadModels(bench.HeadModelsConfig{Model: m, DiskBytes: *size << 20, Updates: *updates, Seed: *seed, Seeds: *seeds, Profile: prof})
	case "journal":
		rep, err = bench.Journal(bench.JournalConfig{Model: m, DiskBytes: *size << 20, Transactions: *updates, Seed: *seed, Profile: prof})
	case "host":
		rep, err = bench.Host(bench.HostConfig{Model: m, Dir: *dir, FileBytes: *size << 20, Updates: *updates, Seed: *seed, Profile: prof})
	case "sqlite":
		sc := bench.SQLiteJournalConfig{Model: m, ImageBytes: *size << 20, Dir: *dir, Seed: *seed, Profile: prof}
		if b.fl.Lookup("updates").Value.String() != b.fl.Lookup("updates").DefValue || *quick {
			sc.Transactions = *updates
		}
		if *quick {
			sc.ThinkMeanMs, sc.Warmup, sc.Rounds = []float64{1}, 10, 1
		}
		rep, err = bench.SQLiteJournal(sc)
	case "profile":
		rep, err = bench.ProfileCells(bench.ProfileCellsConfig{Model: m, DiskBytes: *size << 20, Seed: *seed, Profile: prof})
	default:
		return b.usageErr("--workload %q: want updates, journal, host, sqlite or profile", *workload)
	}
	return b.report(rep, err)
}
