package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/internal/fstest"
)

// TestBenchScalingTiny: two thread counts on the native directory and
// vlfs; every point has a row with its thread count, vlfs's rows carry
// their ratio to native, and the notes give the never-falls verdict.
func TestBenchScalingTiny(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("mounts vlfs and runs 8 timed points (about 5 s); skipped in -short mode")
	}
	code, out, errb := runBenchCmd(t, "bench", "scaling", "--json", "-q", "--dir", t.TempDir(),
		"--targets", bench.PeerNative+","+bench.PeerVLFS, "--threads", "1,3", "--duration", "300ms", "--size", "128MiB")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if err := bench.CheckShape([]byte(out), "scaling"); err != nil {
		t.Errorf("shape: %v", err)
	}
	r := decodeBench(t, out)
	seen := map[string]bool{}
	for _, row := range r.Rows {
		k := fmt.Sprintf("%s/%s/%v", row["target"], row["workload"], row["threads"])
		seen[k] = true
		if v, _ := row["ops_s"].(float64); !(v > 0) {
			t.Errorf("%s: ops_s %v", k, row["ops_s"])
		}
		if row["target"] == bench.PeerVLFS {
			if v, _ := row["ops_x_native"].(float64); !(v > 0) {
				t.Errorf("%s: ops_x_native %v", k, row["ops_x_native"])
			}
		}
	}
	for _, tg := range []string{bench.PeerNative, bench.PeerVLFS} {
		for _, wl := range []string{"varmail", "oltp"} {
			for _, n := range []string{"1", "3"} {
				if !seen[tg+"/"+wl+"/"+n] {
					t.Errorf("no row for %s %s at %s threads (rows %v)", tg, wl, n, seen)
				}
			}
		}
	}
	var withNotes struct{ Notes []string }
	if err := json.Unmarshal([]byte(out), &withNotes); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(withNotes.Notes, "\n")
	for _, wl := range []string{"varmail", "oltp"} {
		if !strings.Contains(notes, "target (issue 31) "+wl+": vlfs's ops/s never falls as threads are added (") {
			t.Errorf("no never-falls verdict for %s:\n%s", wl, notes)
		}
	}
}
