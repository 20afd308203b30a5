package main

import "testing"

func TestBenchHostFlushJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "hostflush", "--dir", t.TempDir(), "--samples", "5", "--file-mib", "1", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "hostflush" || r.Clock != "wall" || len(r.Rows) != 6 {
		t.Fatalf("report %+v", r)
	}
	if r.Params["samples"] != 5.0 || r.Params["file_mib"] != 1.0 {
		t.Errorf("params %v", r.Params)
	}
}

func TestBenchHostFlushErrors(t *testing.T) {
	cases := [][]string{
		{"bench", "hostflush", "--samples", "0"},
		{"bench", "hostflush", "--file-mib", "-1"},
		{"bench", "hostflush", "extra"},
		{"bench", "hostflush", "--bogus"},
	}
	for _, args := range cases {
		if code, _, errb := runBenchCmd(t, args...); code != exitUsage || errb == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
	// A directory that does not exist is an operational failure, not usage.
	if code, _, errb := runBenchCmd(t, "bench", "hostflush", "--dir", t.TempDir()+"/none", "--samples", "1", "--file-mib", "1"); code != exitFailure || errb == "" {
		t.Errorf("missing dir: exit %d, stderr %q", code, errb)
	}
}
