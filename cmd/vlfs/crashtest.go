package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/crashtest"
)

// crashtestArgs is a parsed `vlfs crashtest` command line.
type crashtestArgs struct {
	workloads, workload, state, modes, save, dir string
	killWorkload                                 string
	sample, subsets, jobs, kill, first           int
	seed                                         int64
	asJSON, noShrink                             bool
	sampleSet                                    bool // --sample given (seq1 and compact run all unless it is)
}

// runCrashtest is `vlfs crashtest`: record/replay crash states of
// generated or given workloads in-process, or (--kill N) SIGKILL a real
// FUSE mount N times. Exit codes: 0 every state passed, 4 failures found,
// 2 usage, 8 the test could not run. See docs/crashtest.md.
func runCrashtest(args []string, stdout, stderr io.Writer) int {
	a, code := parseCrashtestArgs(args, stderr)
	if code != exitOK {
		return code
	}
	if a.kill > 0 {
		return runKillTest(a, stdout, stderr)
	}
	ws, err := a.load()
	if err != nil {
		fmt.Fprintf(stderr, "vlfs crashtest: %v\n", err)
		return exitUsage
	}
	cfg := crashtest.Config{Subsets: a.subsets, Seed: a.seed, Jobs: a.jobs, SaveDir: a.save,
		NoShrink: a.noShrink, Progress: stderr, Only: a.state}
	if a.modes != "" {
		cfg.Modes = strings.Split(a.modes, ",")
	}
	res := crashtest.Run(ws, cfg)
	printCrashResult(res, a.asJSON, stdout, stderr)
	switch {
	case len(res.Errors) > 0:
		return exitFailure
	case res.Failures > 0:
		return exitUncorrect
	}
	return exitOK
}

func parseCrashtestArgs(args []string, stderr io.Writer) (*crashtestArgs, int) {
	a := &crashtestArgs{}
	fl := flag.NewFlagSet("crashtest", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&a.workloads, "workloads", "", "generated workloads: seq1 (all), seq2 or seq3 (a --sample), compact (seq-1 ops with the idle-time compactor before or after the persistence point), or records (a --sample of small fsync'd writes of one file between truncates and renames: version 3's log records)")
	fl.StringVar(&a.workload, "workload", "", "run one workload file (format: docs/crashtest.md)")
	fl.IntVar(&a.sample, "sample", 2000, "how many workloads to draw: of seq2/seq3/records (default 2000); of seq1 or compact, a seeded random N of them in their order (default: all)")
	fl.IntVar(&a.first, "first", 0, "run only the first N workloads (0: all)")
	fl.Int64Var(&a.seed, "seed", 1, "seeds the sample, the crash-state subsets and torn writes, and the kill moments")
	fl.IntVar(&a.subsets, "subsets", crashtest.DefaultSubsets, "random subsets of unflushed writes per flush epoch")
	fl.IntVar(&a.jobs, "j", 0, "parallel workers (default GOMAXPROCS)")
	fl.StringVar(&a.modes, "mode", "", "recording modes, comma-separated: buffered, writeout, evict (default all)")
	fl.StringVar(&a.state, "state", "", "check only this crash state (as a replay command prints it)")
	fl.StringVar(&a.save, "save", crashtest.DefaultSaveDir, "save shrunk failing workloads here (\"\": do not save)")
	fl.BoolVar(&a.noShrink, "no-shrink", false, "do not shrink failures")
	fl.IntVar(&a.kill, "kill", 0, "process-crash test: SIGKILL a FUSE mount N times under an fsync-ing writer")
	fl.StringVar(&a.dir, "dir", "", "work directory of --kill (default: a temporary one, removed when all passes)")
	fl.StringVar(&a.killWorkload, "kill-workload", crashtest.WorkloadFsync, "what --kill runs under the kills: fsync (create and fsync files), full-delete (fill the image, then delete in batches and write into the freed space) or overwrite (overwrite a few files in place, each write synced: version 3's log records)")
	fl.BoolVar(&a.asJSON, "json", false, "print the summary as JSON")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: vlfs crashtest (--workloads seq1|seq2|seq3|compact|records [--sample N] | --workload FILE [--state S]) [--subsets N] [--seed S] [-j N] [--json]")
		fmt.Fprintln(stderr, "       vlfs crashtest --kill N [--kill-workload fsync|full-delete|overwrite] [--seed S] [--dir DIR] [--json]")
		fmt.Fprintln(stderr, "exit codes: 0 all crash states passed, 4 failures found, 2 usage, 8 could not run")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return nil, exitUsage
	}
	fl.Visit(func(f *flag.Flag) { a.sampleSet = a.sampleSet || f.Name == "sample" })
	if fl.NArg() != 0 || a.kill < 0 || a.sample < 1 || a.subsets < 1 || a.first < 0 ||
		a.kill == 0 && (a.workloads == "") == (a.workload == "") || a.state != "" && a.workload == "" {
		fl.Usage()
		return nil, exitUsage
	}
	return a, exitOK
}

// load returns the workloads the arguments name.
func (a *crashtestArgs) load() ([]crashtest.Workload, error) {
	var ws []crashtest.Workload
	switch a.workloads {
	case "":
		w, err := crashtest.LoadWorkload(a.workload)
		if err != nil {
			return nil, err
		}
		ws = []crashtest.Workload{w}
	case "seq1":
		ws = a.sampleOf(crashtest.Seq1())
	case "compact":
		ws = a.sampleOf(crashtest.Compact())
	case "records":
		ws = crashtest.Records(a.sample, a.seed)
	case "seq2", "seq3":
		var err error
		if ws, err = crashtest.SeqSample(int(a.workloads[3]-'0'), a.sample, a.seed); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("--workloads %q: want seq1, seq2, seq3, compact or records", a.workloads)
	}
	if a.first > 0 && a.first < len(ws) {
		ws = ws[:a.first]
	}
	return ws, nil
}

// sampleOf is a seeded random --sample of ws, in their order, or all of
// them when --sample was not given (or is not smaller).
func (a *crashtestArgs) sampleOf(ws []crashtest.Workload) []crashtest.Workload {
	if !a.sampleSet || a.sample >= len(ws) {
		return ws
	}
	pick := rand.New(rand.NewSource(a.seed)).Perm(len(ws))[:a.sample]
	slices.Sort(pick)
	out := make([]crashtest.Workload, len(pick))
	for i, j := range pick {
		out[i] = ws[j]
	}
	return out
}

func printCrashResult(res crashtest.Result, asJSON bool, stdout, stderr io.Writer) {
	for _, e := range res.Errors {
		fmt.Fprintf(stderr, "vlfs crashtest: %s\n", e)
	}
	if res.IdleCompactions > 0 {
		fmt.Fprintf(stderr, "vlfs crashtest: warning: in %d recordings (a workload in one mode) the compactor moved nothing, so they tested no compaction\n", res.IdleCompactions)
	}
	for _, r := range res.Reports {
		printReport(r, stderr)
	}
	if asJSON {
		json.NewEncoder(stdout).Encode(res)
		return
	}
	moved := ""
	if res.BlocksMoved > 0 {
		moved = fmt.Sprintf(", %d blocks moved by the compactor", res.BlocksMoved)
	}
	if res.RecordCommits > 0 {
		moved += fmt.Sprintf(", %d commits as log records", res.RecordCommits)
	}
	fmt.Fprintf(stdout, "%d workloads, %d crash states, %d failures%s, %.1f s\n", res.Workloads, res.CrashStates, res.Failures, moved, res.Seconds)
}

// printReport prints one failing workload: its failures, the shrunk
// reproduction and the one-line replay command.
func printReport(r *crashtest.Report, w io.Writer) {
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL %s\n", firstLines(f.String(), 8))
	}
	if r.Shrunk != nil {
		fmt.Fprintf(w, "minimal reproduction (%s):\n%s", r.Saved, indent(r.Shrunk.Workload.String()))
	}
	fmt.Fprintf(w, "replay: %s\n", r.Replay)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines[n] = "..."
	}
	return strings.Join(lines, "\n")
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

// runKillTest is `vlfs crashtest --kill N`.
func runKillTest(a *crashtestArgs, stdout, stderr io.Writer) int {
	bin, err := vlfsBinary()
	if err != nil {
		fmt.Fprintf(stderr, "vlfs crashtest: %v\n", err)
		return exitFailure
	}
	dir, temp := a.dir, a.dir == ""
	if temp {
		if dir, err = os.MkdirTemp("", "vlfs-kill-"); err != nil {
			fmt.Fprintf(stderr, "vlfs crashtest: %v\n", err)
			return exitFailure
		}
	}
	res, err := crashtest.Kill(crashtest.KillConfig{Binary: bin, Dir: dir, Rounds: a.kill, Seed: a.seed, Workload: a.killWorkload, Progress: stderr})
	for _, f := range res.Failures {
		fmt.Fprintf(stderr, "FAIL %s\n", f)
	}
	if asJSON := a.asJSON; asJSON {
		json.NewEncoder(stdout).Encode(map[string]any{"rounds": res.Rounds, "files": res.Files, "verified": res.Verified,
			"failures": len(res.Failures), "seconds": res.Seconds, "full_rounds": res.FullRounds,
			"workload": a.killWorkload, "filled": res.Filled, "deleted": res.Deleted, "room_commits": res.RoomCommits,
			"replayed_records": res.Replayed})
	} else {
		fmt.Fprintf(stdout, "%d kills, %d fsync'd files in the manifest, %d checks, %d failures, %.1f s (%d rounds found the image full)\n",
			res.Rounds, res.Files, res.Verified, len(res.Failures), res.Seconds, res.FullRounds)
		if res.Filled > 0 {
			fmt.Fprintf(stdout, "full-delete: %d files filled the image, %d deletes acknowledged and checked after every kill, %d commits split to make room\n",
				res.Filled, res.Deleted, res.RoomCommits)
		}
		if res.Replayed > 0 {
			fmt.Fprintf(stdout, "log records replayed by the recoveries after the kills: %d\n", res.Replayed)
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "vlfs crashtest: %v (work directory %s)\n", err, dir)
		return exitFailure
	case len(res.Failures) > 0:
		fmt.Fprintf(stderr, "vlfs crashtest: image, manifest and daemon log kept in %s; replay with --kill %d --kill-workload %s --seed %d\n", dir, a.kill, a.killWorkload, a.seed)
		return exitUncorrect
	}
	if temp {
		os.RemoveAll(dir)
	}
	return exitOK
}
