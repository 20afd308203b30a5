package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// tinyProfile measures sim:preset on a tiny grid (skips to 128 KiB, think
// times to 2 ms, 2 repetitions: well under a second) for the benchmarks'
// --head profile:FILE tests, and returns the file.
func tinyProfile(t *testing.T, preset string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), preset+".json")
	code, _, errb := runBenchCmd(t, "profile", "sim:"+preset, "--out", p, "--size", "32MiB",
		"--skip-kib", "128", "--think-ms", "2", "--reps", "2", "--quiet")
	if code != exitOK {
		t.Fatalf("profile sim:%s: exit %d: %s", preset, code, errb)
	}
	return p
}

// headRuns runs one benchmark with --head sim and with --head
// profile:FILE (args shared) and checks what both reports say of the
// head: params.head oracle / profile, and every row's head_model, which
// the benchmark reads back from the volume (vld.Volume.HeadModel), so a
// --head that never reached the volume fails here. It returns both
// reports for the caller to compare a measurement.
func headRuns(t *testing.T, prof string, args ...string) (sim, profiled benchJSON) {
	t.Helper()
	run := func(head, wantParam, wantModel string) benchJSON {
		code, out, errb := runBenchCmd(t, append(append([]string{"bench"}, args...), "--head", head, "--json")...)
		if code != exitOK {
			t.Fatalf("%v --head %s: exit %d: %s", args, head, code, errb)
		}
		r := decodeBench(t, out)
		if r.Params["head"] != wantParam || len(r.Rows) == 0 {
			t.Fatalf("%v --head %s: params.head %v, %d rows; want %s", args, head, r.Params["head"], len(r.Rows), wantParam)
		}
		for _, row := range r.Rows {
			if row["head_model"] != wantModel {
				t.Fatalf("%v --head %s: row head_model %v, want %s: %v", args, head, row["head_model"], wantModel, row)
			}
		}
		return r
	}
	return run("sim", "oracle", "simulated"), run("profile:"+prof, "profile", "profile")
}

// rowsBy indexes a report's rows by the named fields, joined by "/".
func rowsBy(r benchJSON, keys ...string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, row := range r.Rows {
		k := ""
		for _, f := range keys {
			k += "/" + fmt.Sprint(row[f])
		}
		out[k] = row
	}
	return out
}
