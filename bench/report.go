package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Clock names for Report.Clock: every *_ms figure in a report is measured
// on this clock.
const (
	ClockSimulated = "simulated" // the disk model's virtual time
	ClockWall      = "wall"      // real elapsed time
)

// Report is the result of one benchmark, shared by every `vlfs bench`
// subcommand. Its JSON form is
//
//	{"bench": NAME, "disk": {...}, "clock": "simulated"|"wall",
//	 "params": {...}, "rows": [{...}, ...], "notes": [...]}
//
// with "params" and "notes" left out when empty. Each row's keys come out
// in Columns order (parameters first, then metrics), then any keys not in
// Columns, sorted. Time values carry their unit in the key (mean_ms).
//
// To use it: fill Disk with Model.Params() plus whatever the benchmark
// adds about the disk, Params with the run settings needed to reproduce
// it (samples, seed), Columns with the row keys, and append one
// map[string]any per row. WriteJSON and WriteTable print it.
type Report struct {
	Bench   string           // benchmark name, e.g. "locate"
	Disk    map[string]any   // the (simulated) disk's parameters
	Clock   string           // ClockSimulated or ClockWall
	Params  map[string]any   // run settings: samples, seed, ...
	Columns []string         // row keys in print order
	Rows    []map[string]any // one map per row
	Notes   []string         // caveats a reader needs, one sentence each
}

// MarshalJSON writes the report with its keys, and each row's keys, in a
// stable, meaningful order. Non-finite floats are an error.
func (r *Report) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fields := []struct {
		key  string
		v    any
		skip bool
	}{
		{"bench", r.Bench, false},
		{"disk", r.Disk, false},
		{"clock", r.Clock, false},
		{"params", r.Params, len(r.Params) == 0},
		{"rows", orderedRows{r.Columns, r.Rows}, false},
		{"notes", r.Notes, len(r.Notes) == 0},
	}
	b.WriteByte('{')
	first := true
	for _, f := range fields {
		if f.skip {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if err := writeKV(&b, f.key, f.v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// orderedRows marshals rows with their keys in column order.
type orderedRows struct {
	cols []string
	rows []map[string]any
}

func (o orderedRows) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, row := range o.rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for j, k := range rowKeys(o.cols, row) {
			if j > 0 {
				b.WriteByte(',')
			}
			if err := writeKV(&b, k, row[k]); err != nil {
				return nil, err
			}
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// rowKeys lists a row's keys: the columns it has, in order, then the rest
// sorted.
func rowKeys(cols []string, row map[string]any) []string {
	keys := make([]string, 0, len(row))
	seen := make(map[string]bool, len(cols))
	for _, c := range cols {
		if _, ok := row[c]; ok && !seen[c] {
			keys = append(keys, c)
		}
		seen[c] = true
	}
	var rest []string
	for k := range row {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

func writeKV(b *bytes.Buffer, key string, v any) error {
	kb, _ := json.Marshal(key) // a string always marshals
	vb, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("report field %q: %w", key, err)
	}
	b.Write(kb)
	b.WriteByte(':')
	b.Write(vb)
	return nil
}

// WriteJSON writes the report as indented JSON followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	raw, err := r.MarshalJSON()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}

// WriteTable prints the report for people: a title line, the disk and run
// parameters as key=value lists, the rows as aligned columns, then notes.
func (r *Report) WriteTable(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "bench %s (%s clock)\n", r.Bench, r.Clock)
	writeKVLine(&b, "disk", r.Disk)
	writeKVLine(&b, "params", r.Params)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols := r.tableColumns()
	fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	for _, row := range r.Rows {
		cells := make([]string, len(cols))
		for i, c := range cols {
			if v, ok := row[c]; ok {
				cells[i] = FormatValue(v)
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// tableColumns is Columns plus any row key not in it, sorted.
func (r *Report) tableColumns() []string {
	cols := append([]string(nil), r.Columns...)
	seen := make(map[string]bool)
	for _, c := range cols {
		seen[c] = true
	}
	var extra []string
	for _, row := range r.Rows {
		for k := range row {
			if !seen[k] {
				seen[k] = true
				extra = append(extra, k)
			}
		}
	}
	sort.Strings(extra)
	return append(cols, extra...)
}

// writeKVLine prints "label: k=v k=v ..." with keys sorted; nothing if empty.
func writeKVLine(b *bytes.Buffer, label string, m map[string]any) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + FormatValue(m[k])
	}
	fmt.Fprintf(b, "%s: %s\n", label, strings.Join(parts, " "))
}

// FormatValue renders a cell: floats below 1 with 4 significant digits,
// larger ones with 4 decimals (%g beyond 1e7), null (a figure this build
// or this target does not have) as "-", everything else with %v.
func FormatValue(v any) string {
	if v == nil {
		return "-"
	}
	f, ok := v.(float64)
	if !ok {
		return fmt.Sprint(v)
	}
	switch a := math.Abs(f); {
	case a < 1:
		return strconv.FormatFloat(f, 'g', 4, 64)
	case a < 1e7:
		return strconv.FormatFloat(f, 'f', 4, 64)
	default:
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
}
