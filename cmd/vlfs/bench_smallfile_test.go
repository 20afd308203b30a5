package main

import "testing"

// TestBenchSmallfileHeadProfile: --head profile:FILE reaches the mounted
// volumes (head_model from the volume) and changes eager placement's
// simulated time; a bad --head is a usage error.
func TestBenchSmallfileHeadProfile(t *testing.T) {
	p := tinyProfile(t, "st19101")
	sim, prof := headRuns(t, p, "smallfile", "--placement", "eager", "--files", "150", "--disk-mib", "32")
	s, q := rowsBy(sim, "phase"), rowsBy(prof, "phase")
	for _, ph := range []string{"create", "delete"} {
		a, b := s["/"+ph]["time_ms"].(float64), q["/"+ph]["time_ms"].(float64)
		if a <= 0 || b <= 0 || a == b {
			t.Errorf("%s: simulated head %.4f ms, profiled %.4f ms: want two different positive times", ph, a, b)
		}
	}
	if code, _, errb := runBenchCmd(t, "bench", "smallfile", "--head", "oracle"); code != exitUsage {
		t.Errorf("--head oracle: exit %d, want %d: %s", code, exitUsage, errb)
	}
}
