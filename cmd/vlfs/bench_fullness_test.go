package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/loopdev"
)

// TestBenchFullnessTiny: two levels on small images, every target this
// machine can make (ext4 needs loop devices: root). Every target has a row
// at each level with positive rates and CPU, the 80 % rows carry their
// ratio to the empty image, vlfs's rows carry the simulated point, and
// the notes give the verdicts.
func TestBenchFullnessTiny(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("mounts vlfs twice (and ext4), fills them to 80 % and runs 16 timed phases (about 15 s); skipped in -short mode")
	}
	targets := []string{bench.FullVLFSOn, bench.FullVLFSOff}
	if err := loopdev.Available(); err != nil {
		t.Logf("ext4 left out: %v", err)
	} else {
		targets = append(targets, bench.FullExt4)
	}
	code, out, errb := runBenchCmd(t, "bench", "fullness", "--json", "-q", "--quick", "--dir", t.TempDir(),
		"--targets", strings.Join(targets, ","), "--levels", "0,80", "--duration", "300ms", "--size", "128MiB", "--sim-updates", "100")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if err := bench.CheckShape([]byte(out), "fullness"); err != nil {
		t.Errorf("shape: %v", err)
	}
	r := decodeBench(t, out)
	seen := map[string]bool{}
	for _, row := range r.Rows {
		k := fmt.Sprintf("%s/%v", row["target"], row["level_pct"])
		seen[k] = true
		positive := []string{"write200k_ops_s", "write4k_ops_s", "create_ops_s", "unlink_ops_s", "cpu_ms_per_write200k", "cpu_ms_per_create", "used_pct"}
		if row["level_pct"] == 80.0 {
			positive = append(positive, "write200k_x_empty", "create_x_empty")
		}
		if row["target"] != bench.FullExt4 {
			positive = append(positive, "server_cpu_ms_per_write200k", "server_cpu_ms_per_block", "sim_update_ms", "sim_model_ms")
			if _, ok := row["alloc_cpu_ms_per_block"]; !ok {
				t.Errorf("%s: no alloc_cpu_ms_per_block (null while the volume does not count it)", k)
			}
		}
		for _, c := range positive {
			if v, _ := row[c].(float64); !(v > 0) {
				t.Errorf("%s: %s = %v", k, c, row[c])
			}
		}
	}
	for _, tg := range targets {
		for _, l := range []string{"0", "80"} {
			if !seen[tg+"/"+l] {
				t.Errorf("no row for %s at %s %% (rows %v)", tg, l, seen)
			}
		}
	}
	var withNotes struct{ Notes []string }
	if err := json.Unmarshal([]byte(out), &withNotes); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(withNotes.Notes, "\n")
	for _, want := range []string{
		"target (issue 32) 200 KB write+fsync files/s at 80 % full at least 0.7x the empty image's, vlfs-compactor-off: measured ",
		"target (issue 32) simulated update latency within 15 % of formula (2) up to 95 %, vlfs-compactor-on: measured ",
		"clocks: every column is on the wall clock except sim_*",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
