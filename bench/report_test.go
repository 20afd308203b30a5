package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func sampleReport() *Report {
	return &Report{
		Bench:   "demo",
		Disk:    map[string]any{"name": "hp97560", "rpm": 4002.0},
		Clock:   ClockSimulated,
		Columns: []string{"utilization", "simulated_ms"},
		Rows: []map[string]any{
			{"simulated_ms": 0.25, "utilization": 0.5, "extra": 3},
			{"utilization": 0.9, "simulated_ms": 1.5},
		},
	}
}

// TestReportJSONShape: top-level keys in the documented order, empty
// params/notes left out, row keys in column order then the rest sorted.
func TestReportJSONShape(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	order := []string{`"bench": "demo"`, `"disk"`, `"clock": "simulated"`, `"rows"`, `"utilization": 0.5`, `"simulated_ms": 0.25`, `"extra": 3`}
	last := -1
	for _, k := range order {
		i := strings.Index(out, k)
		if i <= last {
			t.Fatalf("%q missing or out of order in\n%s", k, out)
		}
		last = i
	}
	if strings.Contains(out, "params") || strings.Contains(out, "notes") {
		t.Errorf("empty params/notes should be omitted:\n%s", out)
	}
	var back struct {
		Bench string
		Clock string
		Disk  map[string]any
		Rows  []map[string]any
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Bench != "demo" || len(back.Rows) != 2 || back.Rows[1]["simulated_ms"] != 1.5 {
		t.Errorf("decoded %+v", back)
	}
}

func TestReportRejectsNaN(t *testing.T) {
	r := sampleReport()
	r.Rows[0]["simulated_ms"] = math.NaN()
	if err := r.WriteJSON(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "simulated_ms") {
		t.Errorf("NaN: %v", err)
	}
}

func TestReportTable(t *testing.T) {
	r := sampleReport()
	r.Params = map[string]any{"seed": int64(1)}
	r.Notes = []string{"a caveat"}
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{"bench demo (simulated clock)", "disk: name=hp97560 rpm=4002.0000", "params: seed=1"}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	if h := strings.Fields(lines[3]); strings.Join(h, " ") != "utilization simulated_ms extra" {
		t.Errorf("header %q", lines[3])
	}
	if f := strings.Fields(lines[4]); strings.Join(f, " ") != "0.5 0.25 3" {
		t.Errorf("row %q", lines[4])
	}
	if lines[len(lines)-1] != "note: a caveat" {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}
