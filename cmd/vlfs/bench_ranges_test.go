package main

import "testing"

func TestBenchRangesJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "ranges", "--quick", "--figures", "choices,8", "--ops", "100", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "ranges" || r.Clock != "simulated" || len(r.Rows) != 9 {
		t.Fatalf("report %+v", r)
	}
	for _, k := range []string{"queue_depth", "range_blocks", "choices", "read_pct", "mean_ms", "seek_ms", "rotation_ms", "transfer_ms", "w_ec", "w_hr"} {
		if _, ok := r.Rows[0][k].(float64); !ok {
			t.Errorf("row lacks %s: %v", k, r.Rows[0])
		}
	}
	for _, k := range []string{"span", "scheduler"} {
		if _, ok := r.Rows[0][k].(string); !ok {
			t.Errorf("row lacks %s: %v", k, r.Rows[0])
		}
	}
	for _, bad := range [][]string{{"--figures", "9"}, {"--scheduler", "x"}, {"--write-blocks", "0"}, {"--disk", "nope"}, {"extra"}} {
		if code, _, _ := runBenchCmd(t, append([]string{"bench", "ranges", "--quick"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
}
