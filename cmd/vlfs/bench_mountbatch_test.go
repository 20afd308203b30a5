package main

import "testing"

// TestBenchMountBatchJSON runs the mount experiment for one mode, one
// open and one closed load, a second each: every row has reads served
// through the mount and the image checks clean after (MountBatch fails
// otherwise).
func TestBenchMountBatchJSON(t *testing.T) {
	skipWithoutFUSE(t)
	code, out, errb := runBenchCmd(t, "bench", "mountbatch", "--quick", "--duration", "1s", "--loads", "A,S1", "--modes", "cstar", "--dir", t.TempDir(), "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "mountbatch" || r.Clock != "wall" || len(r.Rows) != 2 {
		t.Fatalf("report %+v", r)
	}
	for _, row := range r.Rows {
		if n, _ := row["reads"].(float64); n <= 0 || row["mode"] != "cstar" {
			t.Errorf("row %v: no reads served", row)
		}
	}
	if w, _ := r.Rows[1]["writers"].(float64); w != 1 {
		t.Errorf("load S1: %v writers, want 1", r.Rows[1]["writers"])
	}
}

func TestBenchMountBatchErrors(t *testing.T) {
	cases := [][]string{
		{"bench", "mountbatch", "--loads", "E"},
		{"bench", "mountbatch", "--loads", "S0"},
		{"bench", "mountbatch", "--modes", "lifo"},
		{"bench", "mountbatch", "--duration", "-1s"},
		{"bench", "mountbatch", "--period-ms", "0"},
		{"bench", "mountbatch", "extra"},
	}
	for _, args := range cases {
		if code, _, errb := runBenchCmd(t, args...); code != exitUsage || errb == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
}
