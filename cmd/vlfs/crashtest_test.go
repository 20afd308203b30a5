package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/crashtest"
	"github.com/vlfs/vlfs/internal/fstest"
)

// crashtestJSON runs vlfs crashtest ARGS --json --save "" and returns its
// summary, decoded and as raw keys, failing the test unless it exits 0.
func crashtestJSON(t *testing.T, args ...string) (crashtest.Result, map[string]any, string) {
	t.Helper()
	code, out, errs := runCLI(t, append(append([]string{"crashtest"}, args...), "--json", "--save", "")...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var res crashtest.Result
	var raw map[string]any
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return res, raw, out
}

// TestCrashtestSeq1Quick runs the first seq-1 workloads through the CLI
// and reads the --json summary.
func TestCrashtestSeq1Quick(t *testing.T) {
	res, raw, out := crashtestJSON(t, "--workloads", "seq1", "--first", "24")
	for _, k := range []string{"workloads", "crash_states", "failures", "seconds"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("--json lacks %q: %s", k, out)
		}
	}
	if res.Workloads != 24 || res.CrashStates < 24 || res.Failures != 0 {
		t.Errorf("summary %s", out)
	}
}

// TestCrashtestWorkloadFile runs each committed example workload, and one
// state of one of them as a replay command would.
func TestCrashtestWorkloadFile(t *testing.T) {
	ex, err := filepath.Glob("../../testdata/crash/examples/*.wl")
	if err != nil || len(ex) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range ex {
		if code, out, errs := runCLI(t, "crashtest", "--workload", f, "--save", ""); code != exitOK {
			t.Errorf("%s: exit %d\n%s%s", f, code, out, errs)
		}
	}
	code, out, errs := runCLI(t, "crashtest", "--workload", ex[0], "--mode", "buffered", "--state", "flushes=1", "--save", "")
	if code != exitOK || !strings.HasPrefix(out, "1 workloads, 1 crash states, 0 failures") {
		t.Errorf("replay of one state: exit %d\n%s%s", code, out, errs)
	}
}

func TestCrashtestUsage(t *testing.T) {
	bad := [][]string{
		{}, // nothing to run
		{"--workloads", "seq1", "--workload", "x"}, // both
		{"--workloads", "seq9"},
		{"--workload", "/nonexistent.wl"},
		{"--workloads", "seq1", "--state", "flushes=1"}, // a state needs one workload
		{"--workloads", "seq1", "extra"},
	}
	for _, args := range bad {
		if code, _, _ := runCLI(t, append([]string{"crashtest"}, args...)...); code != exitUsage {
			t.Errorf("crashtest %v: exit %d, want %d", args, code, exitUsage)
		}
	}
	dir := t.TempDir()
	wl := filepath.Join(dir, "bad.wl")
	os.WriteFile(wl, []byte("creat A/f\n---\nsync\n"), 0o644) // a setup op that fails: no parent
	if code, _, errs := runCLI(t, "crashtest", "--workload", wl, "--save", ""); code != exitFailure {
		t.Errorf("a workload whose setup fails: exit %d (%s)", code, errs)
	}
}

// TestCrashtestKill: the process-crash test with two SIGKILLs.
func TestCrashtestKill(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	code, out, errs := runCLI(t, "crashtest", "--kill", "2", "--seed", "3", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	var res struct{ Rounds, Files, Failures int }
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Rounds != 2 || res.Files == 0 || res.Failures != 0 {
		t.Errorf("summary %s (%v)", out, err)
	}
}

// TestCrashtestCompact runs compaction workloads through the CLI: the
// compactor must have moved blocks (said in --json and in the text), and
// no crash state may fail.
func TestCrashtestCompact(t *testing.T) {
	res, raw, out := crashtestJSON(t, "--workloads", "compact", "--first", "2")
	if _, ok := raw["idle_compactions"]; !ok || res.Workloads != 2 || res.Failures != 0 || res.BlocksMoved == 0 || res.CrashStates < 2 || res.IdleCompactions != 0 {
		t.Errorf("summary %s", out)
	}
	code, out, errs := runCLI(t, "crashtest", "--workload", "../../testdata/crash/examples/compact-moves.wl", "--save", "")
	if code != exitOK || !strings.Contains(out, "blocks moved by the compactor") || !strings.Contains(out, " 0 failures") {
		t.Errorf("compact-moves.wl: exit %d\n%s%s", code, out, errs)
	}
}

// TestCrashtestSampleOfSeq1: --sample N with seq1 (or compact) runs a
// seeded random N of them in their order, different seeds differ; without
// it, all of them run.
func TestCrashtestSampleOfSeq1(t *testing.T) {
	load := func(args ...string) []string {
		t.Helper()
		a, code := parseCrashtestArgs(args, &strings.Builder{})
		if code != exitOK {
			t.Fatalf("%q: exit %d", args, code)
		}
		ws, err := a.load()
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(ws))
		for i, w := range ws {
			names[i] = w.Name
		}
		return names
	}
	all := load("--workloads", "seq1")
	one, again, other := load("--workloads", "seq1", "--sample", "50"), load("--workloads", "seq1", "--sample", "50"), load("--workloads", "seq1", "--sample", "50", "--seed", "2")
	if len(all) < 100 || len(one) != 50 {
		t.Fatalf("seq1: %d workloads, --sample 50 gave %d", len(all), len(one))
	}
	if !slices.Equal(one, again) || slices.Equal(one, other) {
		t.Fatalf("a sample is not a function of the seed: %v / %v / %v", one[:3], again[:3], other[:3])
	}
	pos := map[string]int{}
	for i, n := range all {
		pos[n] = i
	}
	for i := 1; i < len(one); i++ {
		if p, q := pos[one[i-1]], pos[one[i]]; q <= p {
			t.Fatalf("sample out of order or repeated: %s (%d) then %s (%d)", one[i-1], p, one[i], q)
		}
	}
	if c := load("--workloads", "compact", "--sample", "7"); len(c) != 7 {
		t.Fatalf("compact --sample 7 gave %d", len(c))
	}
}
