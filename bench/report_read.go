package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrShape marks a report whose JSON does not have the shared shape (see
// CheckShape). Wrapped with what is wrong and where.
var ErrShape = errors.New("benchmark report does not have the shared shape")

// ReadReport decodes a report written by WriteJSON, keeping the row keys'
// order: Columns becomes the keys of every row in first-seen order, so
// WriteTable prints the columns as the benchmark did. Whole numbers come
// back as int64, so they print as the benchmark printed them.
func ReadReport(raw []byte) (*Report, error) {
	var top struct {
		Bench  string            `json:"bench"`
		Disk   json.RawMessage   `json:"disk"`
		Clock  string            `json:"clock"`
		Params json.RawMessage   `json:"params"`
		Rows   []json.RawMessage `json:"rows"`
		Notes  []string          `json:"notes"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("report: %v: %w", err, ErrShape)
	}
	r := &Report{Bench: top.Bench, Clock: top.Clock, Notes: top.Notes}
	var err error
	if r.Disk, err = decodeObject(top.Disk); err != nil {
		return nil, fmt.Errorf("report %s disk: %w", r.Bench, err)
	}
	if r.Params, err = decodeObject(top.Params); err != nil {
		return nil, fmt.Errorf("report %s params: %w", r.Bench, err)
	}
	seen := map[string]bool{}
	for i, rr := range top.Rows {
		keys, err := objectKeys(rr)
		if err != nil {
			return nil, fmt.Errorf("report %s row %d: %w", r.Bench, i, err)
		}
		row, err := decodeObject(rr)
		if err != nil {
			return nil, fmt.Errorf("report %s row %d: %w", r.Bench, i, err)
		}
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				r.Columns = append(r.Columns, k)
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r, nil
}

// decodeObject decodes a JSON object (nil when absent), whole numbers as
// int64 and the rest as float64, at any depth.
func decodeObject(raw []byte) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrShape)
	}
	for k, v := range m {
		nv, err := numbers(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", k, err)
		}
		m[k] = nv
	}
	return m, nil
}

// numbers turns json.Numbers inside v into int64 or float64.
func numbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(x.String(), ".eE") {
			if i, err := x.Int64(); err == nil {
				return i, nil
			}
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrShape)
		}
		return f, nil
	case map[string]any:
		for k, e := range x {
			ne, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = ne
		}
	case []any:
		for i, e := range x {
			ne, err := numbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = ne
		}
	}
	return v, nil
}

// objectKeys lists the keys of a JSON object in the order they appear.
// Values are skipped whole; a non-object is an ErrShape.
func objectKeys(raw []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %w", ErrShape)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrShape)
		}
		k, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("object key %v: %w", tok, ErrShape)
		}
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("value of %q: %v: %w", k, err, ErrShape)
		}
	}
	return keys, nil
}
