package main

import (
	"flag"
	"fmt"
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
	fl := flag.NewFlagSet("bench headmodels", flag.ContinueOnError)
	fl.SetOutput(stderr)
	diskName := fl.String("disk", "st19101", "disk preset or model file")
	workload := fl.String("workload", "updates", "updates, journal, host, sqlite or profile")
	head := fl.String("head", "", "profile:FILE: use this profile instead of measuring one")
	size := fl.Int64("disk-mib", 0, "disk region in MiB (default 128; journal 32; host and sqlite 64)")
	updates := fl.Int("updates", 2000, "measured updates (or transactions) per row (sqlite: default 400)")
	seed := fl.Int64("seed", 1, "random seed")
	seeds := fl.Int("seeds", 1, "updates: average over this many seeds (seed, seed+1, ...)")
	dir := fl.String("dir", "", "host, sqlite: directory for the image and profile files (default: the system's temporary directory)")
	quick := fl.Bool("quick", false, "a smoke run: 32 MiB region (host: 16 MiB), 300 updates, one seed")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs bench headmodels [--disk NAME|FILE] [--workload updates|journal|host|sqlite|profile] [--head profile:FILE] [--disk-mib N] [--updates N] [--seed S] [--seeds N] [--dir DIR] [--quick] [--json]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return exitUsage
	}
	if fl.NArg() != 0 || *size < 0 || *updates <= 0 || *seeds <= 0 {
		fl.Usage()
		return exitUsage
	}
	if *quick {
		small := 32
		if *workload == "host" || *workload == "sqlite" {
			small = 16
		}
		*size = int64(quickSamples(fl, "disk-mib", int(*size), small))
		*updates = quickSamples(fl, "updates", *updates, map[bool]int{true: 100, false: 300}[*workload == "sqlite"])
		*seeds = quickSamples(fl, "seeds", *seeds, 1)
	}
	m, code := resolveDisk("bench headmodels", *diskName, stderr)
	if m == nil {
		return code
	}
	var prof *profile.Profile
	if *head != "" {
		p, err := parseHead(*head)
		if err != nil || p == nil {
			fmt.Fprintf(stderr, "vlfs bench headmodels: --head %q: want profile:FILE (%v)\n", *head, err)
			return exitUsage
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
		if fl.Lookup("updates").Value.String() != fl.Lookup("updates").DefValue || *quick {
			sc.Transactions = *updates
		}
		if *quick {
			sc.ThinkMeanMs, sc.Warmup, sc.Rounds = []float64{1}, 10, 1
		}
		rep, err = bench.SQLiteJournal(sc)
	case "profile":
		rep, err = bench.ProfileCells(bench.ProfileCellsConfig{Model: m, DiskBytes: *size << 20, Seed: *seed, Profile: prof})
	default:
		fmt.Fprintf(stderr, "vlfs bench headmodels: --workload %q: want updates, journal, host, sqlite or profile\n", *workload)
		return exitUsage
	}
	if err != nil {
		return benchFailure("headmodels", err, stderr)
	}
	return writeReport(rep, *asJSON, stdout, stderr)
}
