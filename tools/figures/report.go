package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// errAbsent: a figure's reports are not in the results directory (the
// benchmark has not run, or does not exist yet).
var errAbsent = errors.New("no report")

// report is one `vlfs bench --json` file in the shared shape.
type report struct {
	File   string           `json:"-"`
	Bench  string           `json:"bench"`
	Disk   map[string]any   `json:"disk"`
	Clock  string           `json:"clock"`
	Params map[string]any   `json:"params"`
	Rows   []map[string]any `json:"rows"`
	Notes  []string         `json:"notes"`
	cols   []string         // row keys in first-seen order
}

// results holds every report of a directory, by its "bench" field, plus
// the machine.json that run-bench.sh writes.
type results struct {
	byBench map[string][]*report
	machine map[string]any
	files   []string
}

// loadResults reads every *.json in dir. machine.json is the run's
// machine record; any other file must be a report.
func loadResults(dir string) (*results, error) {
	rs := &results{byBench: map[string][]*report{}}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if filepath.Base(p) == "machine.json" {
			if err := json.Unmarshal(raw, &rs.machine); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			continue
		}
		r := &report{File: filepath.Base(p)}
		if err := json.Unmarshal(raw, r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if r.cols, err = rowColumns(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if r.Bench == "" || len(r.Rows) == 0 {
			return nil, fmt.Errorf("%s: not a benchmark report (no bench or no rows)", p)
		}
		rs.byBench[r.Bench] = append(rs.byBench[r.Bench], r)
		rs.files = append(rs.files, r.File)
	}
	return rs, nil
}

// get returns the reports of a bench, or errAbsent naming the command
// that makes them.
func (rs *results) get(bench string) ([]*report, error) {
	if r := rs.byBench[bench]; len(r) > 0 {
		return r, nil
	}
	return nil, fmt.Errorf("%w for `vlfs bench %s` (docs/results/*.json)", errAbsent, strings.SplitN(bench, "-", 2)[0])
}

// diskName is the report's disk model name ("" for several disks).
func (r *report) diskName() string {
	s, _ := r.Disk["name"].(string)
	return s
}

// diskParam is a number from the disk parameters (of the named disk when
// the report keys several).
func (r *report) diskParam(disk, key string) (float64, bool) {
	d := r.Disk
	if disk != "" {
		if m, ok := r.Disk[disk].(map[string]any); ok {
			d = m
		}
	}
	v, ok := d[key].(float64)
	return v, ok
}

// str and num read a row field; a missing or mistyped one is "" / NaN.
func str(row map[string]any, k string) string {
	s, _ := row[k].(string)
	return s
}

func num(row map[string]any, k string) float64 {
	if v, ok := row[k].(float64); ok {
		return v
	}
	return math.NaN()
}

// where filters rows by string fields (key, value, key, value...); an
// empty value matches a missing field.
func where(rows []map[string]any, kv ...string) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			if str(r, kv[i]) != kv[i+1] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

// whereNum filters rows by a numeric field.
func whereNum(rows []map[string]any, k string, v float64) []map[string]any {
	var out []map[string]any
	for _, r := range rows {
		if num(r, k) == v {
			out = append(out, r)
		}
	}
	return out
}

// distinct lists a string field's values in first-seen order.
func distinct(rows []map[string]any, k string) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rows {
		if s := str(r, k); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// distinctNum lists a numeric field's values, sorted.
func distinctNum(rows []map[string]any, k string) []float64 {
	var out []float64
	seen := map[float64]bool{}
	for _, r := range rows {
		if v := num(r, k); !math.IsNaN(v) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Float64s(out)
	return out
}

// sources lists the reports' file names.
func sources(rs ...*report) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.File)
	}
	return out
}

// rowColumns lists the rows' keys in the order the benchmark wrote them
// (parameters first), which a Go map forgets.
func rowColumns(raw []byte) ([]string, error) {
	var top struct {
		Rows []json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	var cols []string
	seen := map[string]bool{}
	for _, rr := range top.Rows {
		dec := json.NewDecoder(bytes.NewReader(rr))
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, fmt.Errorf("a row is not an object")
		}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := t.(string)
			if !seen[k] {
				seen[k] = true
				cols = append(cols, k)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
		}
	}
	return cols, nil
}
