package main

import "testing"

func TestBenchThresholdJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "threshold", "--disk", "st19101", "--writes", "5000", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "threshold" || r.Clock != "simulated" || len(r.Rows) < 5 {
		t.Fatalf("report %+v", r)
	}
	for _, k := range []string{"threshold", "simulated_ms", "model_ms"} {
		if _, ok := r.Rows[0][k].(float64); !ok {
			t.Errorf("row lacks %s: %v", k, r.Rows[0])
		}
	}
	if code, _, _ := runBenchCmd(t, "bench", "threshold", "--disk", "st19101", "--writes", "0"); code != exitUsage {
		t.Errorf("--writes 0: exit %d", code)
	}
	if code, _, _ := runBenchCmd(t, "bench", "threshold"); code != exitUsage {
		t.Errorf("no --disk: exit %d", code)
	}
}
