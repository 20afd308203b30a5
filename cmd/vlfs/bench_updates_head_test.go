package main

import (
	"path/filepath"
	"testing"
)

// TestBenchUpdatesHeadProfile: --head profile:FILE makes eager placement
// write by a measured profile, and the report says so; a bad --head is a
// usage error.
func TestBenchUpdatesHeadProfile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.json")
	if code, _, errb := runBenchCmd(t, "profile", "sim:st19101", "--out", p, "--size", "32MiB", "--skip-kib", "128", "--think-ms", "2", "--reps", "2", "--quiet"); code != exitOK {
		t.Fatalf("profile: %s", errb)
	}
	for _, tc := range []struct{ head, want string }{{"sim", "oracle"}, {"profile:" + p, "profile"}} {
		code, out, errb := runBenchCmd(t, "bench", "updates", "--placement", "eager", "--quick", "--updates", "100", "--disk-mib", "32", "--head", tc.head, "--json")
		if code != exitOK {
			t.Fatalf("--head %s: exit %d: %s", tc.head, code, errb)
		}
		r := decodeBench(t, out)
		if got := r.Params["head"]; got != tc.want || len(r.Rows) != 2 {
			t.Fatalf("--head %s: params head %v, %d rows", tc.head, got, len(r.Rows))
		}
		for _, row := range r.Rows {
			if ms, ok := row["mean_ms"].(float64); !ok || ms <= 0 {
				t.Errorf("--head %s: row %v", tc.head, row)
			}
		}
	}
	if code, _, _ := runBenchCmd(t, "bench", "updates", "--head", "oracle"); code != exitUsage {
		t.Errorf("--head oracle: exit %d, want %d", code, exitUsage)
	}

	// breakdown: the profile applies to the one disk named (its rows:
	// inplace, eager and vlfs, which mkfs and mount with the profile).
	code, out, errb := runBenchCmd(t, "bench", "breakdown", "--quick", "--updates", "100", "--disk", "st19101", "--head", "profile:"+p, "--json")
	if code != exitOK {
		t.Fatalf("breakdown --head: exit %d: %s", code, errb)
	}
	if r := decodeBench(t, out); r.Params["head"] != "profile" || len(r.Rows) != 3 {
		t.Fatalf("breakdown --head: params %v, %d rows", r.Params, len(r.Rows))
	}
	if code, _, _ := runBenchCmd(t, "bench", "breakdown", "--quick", "--head", "profile:"+p); code != exitUsage {
		t.Errorf("breakdown --head without --disk: exit %d, want %d", code, exitUsage)
	}
}
