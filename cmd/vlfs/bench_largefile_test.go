package main

import "testing"

// TestBenchLargefileHeadProfile: --head profile:FILE reaches the mounted
// volumes and changes the synchronous random writes' simulated time, the
// phase eager placement's head model decides.
func TestBenchLargefileHeadProfile(t *testing.T) {
	p := tinyProfile(t, "st19101")
	sim, prof := headRuns(t, p, "largefile", "--placement", "eager", "--file-mib", "1", "--disk-mib", "32")
	a := rowsBy(sim, "phase")["/rand-write-sync"]["time_ms"].(float64)
	b := rowsBy(prof, "phase")["/rand-write-sync"]["time_ms"].(float64)
	if a <= 0 || b <= 0 || a == b {
		t.Errorf("rand-write-sync: simulated head %.4f ms, profiled %.4f ms: want two different positive times", a, b)
	}
	if code, _, errb := runBenchCmd(t, "bench", "largefile", "--head", "profile:/no/such/profile.json"); code != exitUsage {
		t.Errorf("--head with a missing file: exit %d, want %d: %s", code, exitUsage, errb)
	}
}
