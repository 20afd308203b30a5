package main

import (
	"strings"
	"testing"
)

func TestBenchLocateJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "locate", "--disk", "hp97560", "--samples", "2000", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "locate" || r.Clock != "simulated" || len(r.Rows) != 9 {
		t.Fatalf("report %+v", r)
	}
	want := map[string]any{"sectors_per_track": 72.0, "tracks_per_cylinder": 19.0, "head_switch_ms": 2.5, "rpm": 4002.0, "unit_sectors": 1.0}
	for k, v := range want {
		if r.Disk[k] != v {
			t.Errorf("disk.%s = %v, want %v", k, r.Disk[k], v)
		}
	}
	for _, k := range []string{"utilization", "simulated_ms", "model_ms"} {
		if _, ok := r.Rows[0][k].(float64); !ok {
			t.Errorf("row lacks %s: %v", k, r.Rows[0])
		}
	}
}

func TestBenchLocateTableAndFile(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "locate", "--disk", "../../testdata/disks/st19101.json", "--samples", "500", "--unit-sectors", "8")
	if code != exitOK || !strings.Contains(out, "utilization") || !strings.Contains(out, "unit_sectors=8") {
		t.Fatalf("exit %d: %s\n%s", code, errb, out)
	}
}

func TestBenchLocateErrors(t *testing.T) {
	cases := [][]string{
		{"bench", "locate"},                           // no --disk
		{"bench", "locate", "--disk", "no-such-disk"}, // unknown
		{"bench", "locate", "--disk", "hp97560", "--unit-sectors", "0"},
		{"bench", "locate", "--disk", "hp97560", "--unit-sectors", "73"}, // unit larger than a track
		{"bench", "locate", "--disk", "hp97560", "--samples", "-1"},
		{"bench", "locate", "--disk", "hp97560", "extra"},
		{"bench", "locate", "--bogus"},
		{"bench", "locate", "--disk", "../../testdata/disks/invalid-zero-rpm.json"},
	}
	for _, args := range cases {
		if code, _, errb := runBenchCmd(t, args...); code != exitUsage || errb == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb)
		}
	}
}
