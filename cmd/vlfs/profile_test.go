package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/profile"
)

func runProfileCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"profile"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// tiny is a grid small enough for tests.
var tiny = []string{"--skip-kib", "32", "--think-ms", "1", "--think-step-ms", "0.5", "--reps", "2"}

func TestProfileSim(t *testing.T) {
	out := filepath.Join(t.TempDir(), "p.json")
	code, stdout, stderr := runProfileCmd(append([]string{"sim:hp97560", "--out", out, "--size", "16MiB"}, tiny...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "100%") || !strings.Contains(stderr, "left") {
		t.Errorf("no progress bar on stderr: %q", stderr)
	}
	if !strings.Contains(stdout, "grid: skip 0..32 KiB") {
		t.Errorf("summary: %s", stdout)
	}
	p, err := profile.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if p.Meta.Target != "sim:hp97560" || p.Meta.Kind != profile.KindSim || p.Grid.Skips != 9 || p.Grid.Thinks != 3 || p.Meta.Repetitions != 2 || p.Meta.RegionBytes > 16<<20 {
		t.Errorf("profile meta %+v grid %+v", p.Meta, p.Grid)
	}
	code, stdout, _ = runProfileCmd("--show", out)
	if code != exitOK || !strings.Contains(stdout, "darker is slower") {
		t.Errorf("--show: %d %s", code, stdout)
	}
	code, stdout, _ = runProfileCmd("--show", out, "--json")
	var s struct {
		Summary profile.Summary      `json:"summary"`
		Rows    []profile.RowSummary `json:"rows"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); code != exitOK || err != nil || len(s.Rows) != 3 || s.Summary.Cells != 27 {
		t.Errorf("--show --json: %d %v %s", code, err, stdout)
	}
}

func TestProfileFile(t *testing.T) {
	dir := t.TempDir()
	for _, keep := range []bool{false, true} {
		target, out := filepath.Join(dir, "target.img"), filepath.Join(dir, "p.json")
		args := append([]string{target, "--out", out, "--size", "2MiB", "--quiet", "--json"}, tiny...)
		if keep {
			args = append(args, "--keep")
		}
		code, stdout, stderr := runProfileCmd(args...)
		if code != exitOK || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if !json.Valid([]byte(stdout)) {
			t.Errorf("--json output: %s", stdout)
		}
		if _, err := os.Stat(target); keep != (err == nil) {
			t.Errorf("keep=%v: target after the run: %v", keep, err)
		}
	}
	// The kept file now exists: profiling it again needs --destroy-data.
	target := filepath.Join(dir, "target.img")
	code, _, stderr := runProfileCmd(append([]string{target, "--out", filepath.Join(dir, "q.json"), "--quiet"}, tiny...)...)
	if code != exitFailure || !strings.Contains(stderr, "--destroy-data") {
		t.Errorf("existing file: exit %d, %q", code, stderr)
	}
	code, _, stderr = runProfileCmd(append([]string{target, "--out", filepath.Join(dir, "q.json"), "--quiet", "--destroy-data"}, tiny...)...)
	if code != exitOK {
		t.Errorf("existing file with --destroy-data: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("a file the tool did not create was removed: %v", err)
	}
}

func TestProfileUsage(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.json")
	for _, args := range [][]string{
		{},
		{"sim:st19101"},            // no --out
		{"--out", out},             // no target
		{"sim:nope", "--out", out}, // unknown preset
		{"sim:st19101", "--out", out, "--size", "lots"}, // bad size
		{"sim:st19101", "--out", out, "--skip-step-kib", "0"},
		{"sim:st19101", "--out", out, "--skip-step-kib", "0.3"}, // not a multiple of 512 bytes
		{"--show", filepath.Join(dir, "missing.json"), "extra"},
	} {
		if code, _, _ := runProfileCmd(args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, _, _ := runProfileCmd("--show", filepath.Join(dir, "missing.json")); code != exitFailure {
		t.Errorf("--show of a missing file: exit %d", code)
	}
}
