package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// runCmd runs the binary's entry point and returns exit code and output.
func runBenchCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// benchJSON is the shared shape of every bench report.
type benchJSON struct {
	Bench  string           `json:"bench"`
	Disk   map[string]any   `json:"disk"`
	Clock  string           `json:"clock"`
	Params map[string]any   `json:"params"`
	Rows   []map[string]any `json:"rows"`
}

func decodeBench(t *testing.T, out string) benchJSON {
	t.Helper()
	var r benchJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	return r
}

func TestBenchDispatch(t *testing.T) {
	code, out, _ := runBenchCmd(t, "bench", "help")
	if code != exitOK || !strings.Contains(out, "locate") || !strings.Contains(out, "threshold") {
		t.Errorf("help: %d %q", code, out)
	}
	if code, _, errb := runBenchCmd(t, "bench", "nope"); code != exitUsage || !strings.Contains(errb, "unknown benchmark") {
		t.Errorf("unknown: %d %q", code, errb)
	}
	if code, _, _ := runBenchCmd(t, "bench"); code != exitUsage {
		t.Errorf("no name: %d", code)
	}
}
