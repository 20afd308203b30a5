package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestBenchHeadModels(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "headmodels", "--disk", "hp97560", "--disk-mib", "16", "--updates", "50", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "headmodels" || r.Clock != "simulated" || len(r.Rows) != 6 {
		t.Fatalf("report %+v", r)
	}
	for _, row := range r.Rows {
		if _, ok := row["mean_ms"].(float64); !ok || row["head"] == nil || row["utilization"] == nil {
			t.Errorf("row %v", row)
		}
	}
}

func TestBenchHeadModelsJournalWithProfileFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	if code, _, errb := runBenchCmd(t, "profile", "sim:st19101", "--out", p, "--size", "32MiB", "--skip-kib", "128", "--think-ms", "2", "--reps", "2", "--quiet"); code != exitOK {
		t.Fatalf("profile: %s", errb)
	}
	code, out, errb := runBenchCmd(t, "bench", "headmodels", "--workload", "journal", "--head", "profile:"+p, "--updates", "50", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "headmodels-journal" || len(r.Rows) != 16 {
		t.Fatalf("report %+v", r)
	}
}

func TestBenchHeadModelsUsage(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--workload", "tpcc"},
		{"--head", "oracle"},
		{"--head", "profile:" + bad},
		{"--seeds", "0"},
		{"--disk", "nope"},
	} {
		if code, _, _ := runBenchCmd(t, append([]string{"bench", "headmodels"}, args...)...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestBenchHeadModelsProfileCells: --workload profile reports a given
// profile's cells, one row each, on the profile's clock.
func TestBenchHeadModelsProfileCells(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	if code, _, errb := runBenchCmd(t, "profile", "sim:hpc2247a", "--out", p, "--size", "32MiB", "--skip-kib", "32", "--think-ms", "1", "--think-step-ms", "0.5", "--reps", "2", "--quiet"); code != exitOK {
		t.Fatalf("profile: %s", errb)
	}
	code, out, errb := runBenchCmd(t, "bench", "headmodels", "--workload", "profile", "--head", "profile:"+p, "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "headmodels-profile" || r.Clock != "simulated" || len(r.Rows) != 9*3 {
		t.Fatalf("report %+v", r)
	}
	for _, row := range r.Rows {
		if _, ok := row["median_ms"].(float64); !ok || row["skip_kib"] == nil || row["think_ms"] == nil {
			t.Errorf("row %v", row)
		}
	}
}
