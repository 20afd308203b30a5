package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/bench"
	"github.com/vlfs/vlfs/internal/fstest"
)

// TestBenchPeersTiny runs `vlfs bench peers --quick` on tiny sizes against
// every target this machine has, and checks the report's shape: a row per
// target and workload with positive figures, ratios between targets, and
// a verdict note per issue target.
func TestBenchPeersTiny(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("mounts four file systems and runs fio, sqlite3 (about 20 s); skipped in -short mode")
	}
	targets := []string{bench.PeerNative, bench.PeerFuse2fs, bench.PeerVLFS}
	args := []string{"bench", "peers", "--quick", "--json", "-q", "--dir", t.TempDir(),
		"--size", "128MiB", "--seq-size", "4MiB", "--files", "300", "--sync-ios", "40", "--duration", "200ms", "--mix-duration", "1s"}
	if lb := buildLoopback(t); lb != "" {
		targets = append(targets, bench.PeerLoopback)
		args = append(args, "--loopback", lb)
	}
	args = append(args, "--targets", strings.Join(targets, ","))
	code, out, errb := runBenchCmd(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if err := bench.CheckShape([]byte(out), "peers"); err != nil {
		t.Errorf("shape: %v", err)
	}
	r := decodeBench(t, out)
	var withNotes struct{ Notes []string }
	json.Unmarshal([]byte(out), &withNotes)
	if r.Clock != "wall" {
		t.Errorf("clock %q", r.Clock)
	}
	notes := strings.Join(withNotes.Notes, "\n")
	seen := map[string]map[string]map[string]any{}
	for _, row := range r.Rows {
		tg, w := row["target"].(string), row["workload"].(string)
		if seen[tg] == nil {
			seen[tg] = map[string]map[string]any{}
		}
		seen[tg][w] = row
		if strings.HasPrefix(w, "mix-") {
			// stress-ng counts bogo operations, no latencies; a slow
			// stressor may finish none in a second.
			if v, ok := row["ops_s"].(float64); !ok || v < 0 {
				t.Errorf("%s %s: ops_s = %v", tg, w, row["ops_s"])
			}
			if v, _ := row["mix_run_ms"].(float64); !(v >= 1000) {
				t.Errorf("%s %s: mix_run_ms = %v, want at least the 1 s asked for", tg, w, row["mix_run_ms"])
			}
			continue
		}
		for _, k := range []string{"ops_s", "p50_ms", "p99_ms"} {
			if v, _ := row[k].(float64); !(v > 0) {
				t.Errorf("%s %s: %s = %v, want > 0", tg, w, k, row[k])
			}
		}
		if row["clock"] != "wall" {
			t.Errorf("%s %s: clock %v", tg, w, row["clock"])
		}
	}
	workloads := []string{"varmail", "oltp", "meta-create", "meta-stat", "meta-unlink"}
	if _, err := exec.LookPath("fio"); err == nil {
		workloads = append(workloads, "fio-randwrite-fsync", "fio-append-fdatasync", "fio-seqwrite", "fio-seqread", "fio-randread")
	} else if !strings.Contains(notes, "skipped fio") {
		t.Errorf("fio missing but no note says so: %s", notes)
	}
	if _, err := exec.LookPath("sqlite3"); err == nil {
		workloads = append(workloads, "sqlite-rollback", "sqlite-wal")
	}
	if _, err := exec.LookPath("stress-ng"); err == nil {
		workloads = append(workloads, "mix-hdd", "mix-seek") // the stressors sure to finish operations in a second
		if !strings.Contains(notes, "stress-ng mix: no request's p99 above 100 ms in vlfs's server: slowest") {
			t.Errorf("notes lack the mix's latency verdict:\n%s", notes)
		}
	} else if !strings.Contains(notes, "skipped mix") {
		t.Errorf("stress-ng missing but no note says so: %s", notes)
	}
	for _, tg := range targets {
		for _, w := range workloads {
			row, ok := seen[tg][w]
			if !ok {
				t.Errorf("no row for %s %s", tg, w)
				continue
			}
			if tg != bench.PeerNative {
				if v, _ := row["ops_x_native"].(float64); !(v > 0) {
					t.Errorf("%s %s: ops_x_native = %v", tg, w, row["ops_x_native"])
				}
			}
		}
	}
	if v, _ := seen[bench.PeerVLFS]["varmail"]["fuse_per_op"].(float64); !(v > 0) {
		t.Errorf("vlfs varmail row lacks the server's costs: %v", seen[bench.PeerVLFS]["varmail"])
	}
	if !strings.Contains(notes, "target (issue 3) creates at least 2x fuse2fs's rate: measured") {
		t.Errorf("notes lack the create-rate verdict:\n%s", notes)
	}
}

// buildLoopback builds bench/loopback into a temporary directory, or
// returns "" (the loopback target is then left out) if go cannot.
func buildLoopback(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vlfs-loopback")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = filepath.Join("..", "..", "bench", "loopback")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("leaving out the loopback target: go build: %v: %s", err, out)
		return ""
	}
	return bin
}

// TestBenchPeersHead: --head profile:FILE reaches vlfs's volume (each vlfs
// row's head_model is read back from the mounted server's report).
func TestBenchPeersHead(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("mounts vlfs twice and runs fio; skipped in -short mode")
	}
	if _, err := exec.LookPath("fio"); err != nil {
		t.Skipf("needs fio (make deps): %v", err)
	}
	p := tinyProfile(t, "st19101")
	headRuns(t, p, "peers", "--quick", "-q", "--dir", t.TempDir(), "--targets", bench.PeerVLFS, "--workloads", "fio",
		"--size", "64MiB", "--seq-size", "2MiB", "--sync-ios", "20")
}

// TestBenchPeersUsage: arguments that cannot run exit 2 before anything is
// mounted, saying what is wrong.
func TestBenchPeersUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rounds", "0"}, "--rounds 0: need at least 1"},
		{[]string{"--targets", "ext9"}, "ext9"},
		{[]string{"extra"}, "usage"},
	} {
		code, _, errb := runBenchCmd(t, append([]string{"bench", "peers", "-q"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errb, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, errb, exitUsage, c.want)
		}
	}
}

// TestBenchPeersRounds: --rounds 2 runs each target twice and reports one
// row per target and workload, each saying it is the median of 2 rounds,
// in the shared report shape.
func TestBenchPeersRounds(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if testing.Short() {
		t.Skip("mounts vlfs twice; skipped in -short mode")
	}
	code, out, errb := runBenchCmd(t, "bench", "peers", "--quick", "--json", "-q", "--dir", t.TempDir(), "--rounds", "2",
		"--targets", bench.PeerNative+","+bench.PeerVLFS, "--workloads", "meta", "--size", "64MiB", "--files", "50")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if err := bench.CheckShape([]byte(out), "peers"); err != nil {
		t.Errorf("shape: %v", err)
	}
	r := decodeBench(t, out)
	seen := map[string]int{}
	for _, row := range r.Rows {
		seen[row["target"].(string)+" "+row["workload"].(string)]++
		if n, _ := row["rounds"].(float64); n != 2 {
			t.Errorf("%s %s: rounds %v, want 2", row["target"], row["workload"], row["rounds"])
		}
	}
	for _, tg := range []string{bench.PeerNative, bench.PeerVLFS} {
		for _, w := range []string{"meta-create", "meta-stat", "meta-unlink"} {
			if n := seen[tg+" "+w]; n != 1 {
				t.Errorf("%s %s: %d rows, want 1", tg, w, n)
			}
		}
	}
}
