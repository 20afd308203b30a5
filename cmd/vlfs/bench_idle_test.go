package main

import (
	"testing"
)

// TestBenchIdleJSON runs a small sweep and checks the report's shape and
// that the compactor lowers latency when it has idle time.
func TestBenchIdleJSON(t *testing.T) {
	code, out, errb := runBenchCmd(t, "bench", "idle", "--quick", "--burst-kb", "128", "--idle-ms", "0,300", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	r := decodeBench(t, out)
	if r.Bench != "idle" || r.Clock != "simulated" || r.Disk["st19101"] == nil {
		t.Fatalf("header: %+v", r)
	}
	mean := map[string]float64{}
	for _, row := range r.Rows {
		for _, k := range []string{"placement", "compactor", "burst_kb", "idle_ms", "utilization", "mean_ms"} {
			if _, ok := row[k]; !ok {
				t.Fatalf("row without %s: %v", k, row)
			}
		}
		key := row["compactor"].(string) + "/" + fmtNum(row["utilization"]) + "/" + fmtNum(row["idle_ms"])
		mean[key] = row["mean_ms"].(float64)
	}
	empty, off, on := mean["off/0/0"], mean["off/0.8/300"], mean["on/0.8/300"]
	if empty <= 0 || off <= empty || on >= off {
		t.Fatalf("empty %.3f, 80%% without compactor %.3f, with %.3f ms: want empty < with < without", empty, on, off)
	}
	if code, _, _ := runBenchCmd(t, "bench", "idle", "--burst-kb", "3"); code != exitUsage {
		t.Fatalf("burst of 3 KiB: exit %d", code)
	}
	if code, _, _ := runBenchCmd(t, "bench", "idle", "--start", "later"); code != exitUsage {
		t.Fatalf("bad --start: exit %d", code)
	}
}

func fmtNum(v any) string {
	f, _ := v.(float64)
	switch f {
	case 0:
		return "0"
	case 0.8:
		return "0.8"
	case 300:
		return "300"
	}
	return "?"
}
