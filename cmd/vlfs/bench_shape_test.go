package main

import (
	"os"
	"os/exec"
	"sort"
	"testing"

	"github.com/vlfs/vlfs/bench"
)

// benchShapeRuns are extra runs, or extra arguments, for benchmarks whose
// default --quick run does not cover every report they make. A benchmark
// not listed runs once as `vlfs bench NAME --quick --json`.
var benchShapeRuns = map[string][][]string{
	"fullness":   {{"--levels", "0,80", "--duration", "200ms", "--size", "128MiB", "--sim-updates", "100"}},
	"headmodels": {{}, {"--workload", "journal"}},
	"locate":     {{"--disk", "hp97560"}},
	"peers":      {{"--targets", "native,vlfs", "--workloads", "meta", "--files", "200"}},
	"threshold":  {{"--disk", "st19101"}},
}

// benchNeedsFUSE run file systems over FUSE (or the host's tools); they
// are skipped without /dev/fuse and in -short mode.
var benchNeedsFUSE = map[string]bool{"fullness": true, "logical": true, "peers": true}

// TestBenchJSONShape runs every registered benchmark with --quick --json
// and checks its report against the shared shape (bench.CheckShape), so a
// benchmark that drifts from what tools/figures and docs/results.md read
// fails here. New benchmarks are picked up from benchmarks() and must
// accept --quick.
func TestBenchJSONShape(t *testing.T) {
	names := make([]string, 0)
	for n := range benchmarks() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		runs := benchShapeRuns[name]
		if runs == nil {
			runs = [][]string{{}}
		}
		for _, extra := range runs {
			t.Run(name, func(t *testing.T) {
				if benchNeedsFUSE[name] {
					skipWithoutFUSE(t)
				}
				t.Parallel()
				args := append([]string{"bench", name, "--quick", "--json"}, extra...)
				code, out, errb := runBenchCmd(t, args...)
				if code != exitOK {
					t.Fatalf("%v: exit %d: %s", args, code, errb)
				}
				if err := bench.CheckShape([]byte(out), name); err != nil {
					t.Fatalf("%v: %v", args, err)
				}
			})
		}
	}
}

// TestBenchUpdatesFields: the fields issue 9 names for Figure 8's rows.
func TestBenchUpdatesFields(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "updates", "--quick", "--updates", "100", "--disk-mib", "32", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	placements := map[string]bool{}
	for _, row := range r.Rows {
		p, _ := row["placement"].(string)
		placements[p] = true
		for _, k := range []string{"utilization", "mean_ms"} {
			if _, ok := row[k].(float64); !ok {
				t.Errorf("row lacks %s: %v", k, row)
			}
		}
	}
	if !placements["eager"] || !placements["inplace"] {
		t.Errorf("placements %v: want eager and inplace", placements)
	}
}

func skipWithoutFUSE(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("mounts file systems; skipped in -short mode")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("needs /dev/fuse: %v", err)
	}
	for _, p := range []string{"fusermount3", "mkfs.ext4"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s (make deps): %v", p, err)
		}
	}
}
