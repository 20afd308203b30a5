package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchShow: a saved report prints as the benchmark's own table.
func TestBenchShow(t *testing.T) {
	code, js, errb := runBenchCmd(t, "bench", "threshold", "--disk", "st19101", "--writes", "500", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	_, table, _ := runBenchCmd(t, "bench", "threshold", "--disk", "st19101", "--writes", "500")
	path := filepath.Join(t.TempDir(), "threshold.json")
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errb := runBenchCmd(t, "bench", "show", path)
	if code != exitOK || errb != "" {
		t.Fatalf("exit %d: %s", code, errb)
	}
	if sameTable(out) != sameTable(table) {
		t.Errorf("show printed:\n%s\nthe benchmark printed:\n%s", out, table)
	}
	if code, _, _ := runBenchCmd(t, "bench", "show"); code != exitUsage {
		t.Errorf("no file: exit %d", code)
	}
	code, _, errb = runBenchCmd(t, "bench", "show", filepath.Join(t.TempDir(), "none.json"))
	if code != exitFailure || !strings.Contains(errb, "none.json") {
		t.Errorf("missing file: exit %d, %q", code, errb)
	}
}

// sameTable normalises a table for comparison: JSON cannot tell 4002.0
// from 4002, so a whole float prints as an integer after a round trip
// ("4002.0000" -> "4002"), and the column widths follow.
func sameTable(s string) string {
	s = regexp.MustCompile(`(\d)\.0000\b`).ReplaceAllString(s, "$1")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}
