package crashtest

import (
	"flag"
	"testing"
	"time"
)

var seq1All = flag.Bool("crashtest.seq1", false, "run the whole seq-1 set (minutes)")

// TestSeq1Subset checks every 12th seq-1 workload (all of them with
// -crashtest.seq1): no crash state may break a rule.
func TestSeq1Subset(t *testing.T) {
	ws := Seq1()
	step := 12
	if *seq1All {
		step = 1
	}
	res := runClean(t, every(ws, step, 1))
	if res.CrashStates < res.Workloads {
		t.Errorf("only %d crash states for %d workloads", res.CrashStates, res.Workloads)
	}
}

// every takes group consecutive workloads out of each step*group, from the
// first: the subsets make test runs.
func every(ws []Workload, step, group int) []Workload {
	var sub []Workload
	for i := 0; i+group <= len(ws); i += step * group {
		sub = append(sub, ws[i:i+group]...)
	}
	return sub
}

// runClean runs ws with seed 1 and no shrinking, logs the summary and
// fails the test for every workload that could not run and every failure.
func runClean(t *testing.T, ws []Workload) Result {
	t.Helper()
	start := time.Now()
	res := Run(ws, Config{Seed: 1, NoShrink: true})
	t.Logf("%d workloads, %d crash states, %d failing, %d blocks moved, %v", res.Workloads, res.CrashStates, res.Failures, res.BlocksMoved, time.Since(start))
	for _, e := range res.Errors {
		t.Error(e)
	}
	for _, r := range res.Reports {
		for _, f := range r.Failures {
			t.Errorf("%v\n%s", f, f.Workload)
		}
	}
	return res
}
