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

// TestBenchIdleHeadProfile: --head profile:FILE reaches the logical disks
// and the file systems (head_model from each volume) and changes the
// eager rows' simulated latency; --quick keeps an explicit --disk (a
// profile belongs to one disk), and a profile with two disks is refused.
func TestBenchIdleHeadProfile(t *testing.T) {
	p := tinyProfile(t, "hp97560")
	sim, prof := headRuns(t, p, "idle", "--quick", "--disk", "hp97560", "--disk-mib", "16", "--updates", "64",
		"--burst-kb", "128", "--idle-ms", "0,20", "--placement", "eager")
	if prof.Disk["hp97560"] == nil || prof.Disk["st19101"] != nil || prof.Params["disk_bytes"] != float64(16<<20) {
		t.Fatalf("--quick --disk hp97560 --disk-mib 16: disks %v, disk_bytes %v", prof.Disk, prof.Params["disk_bytes"])
	}
	s, q := rowsBy(sim, "system", "compactor", "utilization", "idle_ms"), rowsBy(prof, "system", "compactor", "utilization", "idle_ms")
	if len(s) != len(q) || len(s) == 0 {
		t.Fatalf("%d rows with the simulated head, %d with the profile", len(s), len(q))
	}
	differ := 0
	for k, row := range s {
		if row["mean_ms"] != q[k]["mean_ms"] {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("every row's mean_ms is the same with the profile as with the simulated head: %v", q)
	}
	if code, _, errb := runBenchCmd(t, "bench", "idle", "--quick", "--disk", "st19101,hp97560", "--head", "profile:"+p); code != exitUsage {
		t.Errorf("profile with two disks: exit %d, want %d: %s", code, exitUsage, errb)
	}
}
