package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testReports are small reports in the shared shape, enough for some of
// the figures; the rest must be skipped with a message.
var testReports = map[string]string{
	"locate-st19101.json": `{"bench":"locate","disk":{"name":"st19101","unit_ms":0.0234},"clock":"simulated","rows":[
		{"utilization":0.1,"simulated_ms":0.0026,"model_ms":0.0026,"diff_pct":-1.4},
		{"utilization":0.8,"simulated_ms":0.093,"model_ms":0.093,"diff_pct":0.5}]}`,
	"updates.json": `{"bench":"updates","disk":{"name":"st19101"},"clock":"simulated","rows":[
		{"placement":"inplace","utilization":0.5,"mean_ms":4.4},{"placement":"inplace","utilization":0.8,"mean_ms":4.6},
		{"placement":"eager","utilization":0.5,"mean_ms":0.7},{"placement":"eager","utilization":0.8,"mean_ms":0.71}]}`,
	"peers.json": `{"bench":"peers","disk":{"name":"st19101"},"clock":"wall","rows":[
		{"target":"native","workload":"meta-create","ops_s":1000,"mb_s":0,"p50_ms":0.1,"p99_ms":1},
		{"target":"vlfs","workload":"meta-create","ops_s":500,"mb_s":0,"p50_ms":0.2,"p99_ms":2,"ops_x_native":0.5}],
		"notes":["target (issue 9) x: measured 0.50x (MISSED)"]}`,
	"logical.json": `{"bench":"logical","disk":{"name":"st19101"},"clock":"simulated","rows":[{"stack":"a|b","speedup":5.5}],"notes":["a note"]}`,
	"fullness.json": `{"bench":"fullness","disk":{"name":"st19101"},"clock":"wall","rows":[
		{"target":"vlfs-compactor-off","level_pct":0,"used_pct":1,"write200k_ops_s":1000,"write200k_x_empty":1,"alloc_cpu_ms_per_block":null,"sim_update_ms":0.57,"sim_model_ms":0.48},
		{"target":"vlfs-compactor-off","level_pct":80,"used_pct":80,"write200k_ops_s":300,"write200k_x_empty":0.3,"alloc_cpu_ms_per_block":null,"sim_update_ms":0.72,"sim_model_ms":0.84},
		{"target":"ext4","level_pct":0,"used_pct":0,"write200k_ops_s":1500,"write200k_x_empty":1},
		{"target":"ext4","level_pct":80,"used_pct":80,"write200k_ops_s":1600,"write200k_x_empty":1.07}],
		"notes":["target (issue 32) 200 KB x: measured 0.30x (MISSED)"]}`,
	"machine.json": `{"date":"2026-01-02T03:04:05Z","nproc":2,"cpu":"Test CPU","kernel":"6.0","suite_s":12}`,
}

func writeReports(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRun draws what it has data for, skips the rest by name, and writes
// a page with the machine, the verdicts and the other reports' tables.
func TestRun(t *testing.T) {
	res := writeReports(t, testReports)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-results", res, "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, f := range []string{"vlog-fig1-locate", "vlog-fig8-updates", "peers", "fullness"} {
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(filepath.Join(out, "figures", f+ext))
			if err != nil || st.Size() < 1000 {
				t.Errorf("%s%s: %v (%v bytes)", f, ext, err, st)
			}
		}
	}
	for _, skipped := range []string{"skip vlog-fig2-threshold", "skip batch-fig2", "skip ranges-fig4-6"} {
		if !strings.Contains(stderr.String(), skipped) {
			t.Errorf("stderr lacks %q:\n%s", skipped, stderr.String())
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Test CPU", "2026-01-02T03:04:05Z",
		"figures/vlog-fig1-locate.svg", "figures/vlog-fig1-locate.png",
		"st19101 at 80 %: in place 4.60 ms, eager 0.71 ms, 6.5x",
		"issue 9 asks for at least 10x: NOT met",
		"measured 0.50x (MISSED)",
		"target (issue 32) 200 KB x: measured 0.30x (MISSED).", "| vlfs-compactor-off | 80 | 80 | 300 | 0.3 |",
		"## vlfs bench logical (logical.json)", `a\|b`, "a note",
		"`docs/results/updates.json`",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("results.md lacks %q", want)
		}
	}
}

// TestRunBadInput: a JSON file that is not a report is an error, not a
// silently empty page; bad flags are usage errors.
func TestRunBadInput(t *testing.T) {
	res := writeReports(t, map[string]string{"x.json": `{"rows":[]}`})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-results", res, "-out", t.TempDir()}, &stdout, &stderr); code != 8 || !strings.Contains(stderr.String(), "not a benchmark report") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"extra"}, &stdout, &stderr); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}

// TestAnchor: GitHub's heading anchors, which the contents list links to.
func TestAnchor(t *testing.T) {
	cases := map[string]string{
		"Virtual-log paper, Figure 1: locating a free sector": "virtual-log-paper-figure-1-locating-a-free-sector",
		"vlfs bench logical (logical.json)":                   "vlfs-bench-logical-logicaljson",
	}
	for in, want := range cases {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"sim:st19101", "sim-st19101"},
		{"/work/h8/host file.img", "work-h8-host-file.img"},
		{"/dev/sdb", "dev-sdb"},
		{"hpc2247a", "hpc2247a"},
		{"::", ""},
	} {
		if got := fileSafe(c.in); got != c.want {
			t.Errorf("fileSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
