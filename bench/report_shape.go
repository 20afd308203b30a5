package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The shared shape of `vlfs bench NAME --json`, which plots, docs/results.md
// and scripts rely on (tools/figures reads nothing else):
//
//	{"bench": NAME, "disk": {...}, "clock": "simulated"|"wall",
//	 "params": {...}, "rows": [{...}, ...], "notes": [...]}
//
// The rules CheckShape enforces:
//
//   - bench, disk, clock and rows are required, in this order; params and
//     notes are optional; no other top-level key.
//   - bench is the subcommand's name, or NAME-VARIANT for a second kind of
//     report from one subcommand (headmodels-journal, headmodels-host).
//   - disk is the model's parameters with a "name"; a benchmark that runs
//     several disks keys them by name ({"hp97560": {...}, "st19101": {...}})
//     and every row then names its disk in a "disk" field.
//   - rows is a non-empty array of flat objects (strings, numbers, booleans,
//     null): the parameters first (every string-valued field comes before
//     the first *_ms field), then the metrics.
//   - keys are snake_case; a time is in milliseconds with "_ms" in its key
//     (mean_ms, sim_ms_per_write); no _s/_us/_ns/_sec times. Rates are
//     mb_s, ops_s and the like.
var (
	topKeyOrder  = []string{"bench", "disk", "clock", "params", "rows", "notes"}
	snakeCase    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	rateSuffixes = []string{"mb_s", "kb_s", "gb_s", "ops_s", "bytes_s", "blocks_s", "per_s"}
	badTimeUnits = []string{"_us", "_ns", "_sec", "_secs", "_seconds", "_min", "_usec", "_nsec"}
	timeWords    = []string{"latency", "time", "duration", "elapsed"}
)

// CheckShape checks raw (one report's JSON) against the shared shape and,
// when name is not empty, that it is the report of benchmark name. It
// returns every problem found, joined, each wrapping ErrShape.
func CheckShape(raw []byte, name string) error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format+": %w", append(args, ErrShape)...))
	}
	keys, err := objectKeys(raw)
	if err != nil {
		return err
	}
	checkTopKeys(keys, bad)
	var top struct {
		Bench string                     `json:"bench"`
		Disk  map[string]json.RawMessage `json:"disk"`
		Clock string                     `json:"clock"`
		Rows  []json.RawMessage          `json:"rows"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		bad("decoding: %v", err)
		return errors.Join(errs...)
	}
	if top.Bench == "" || (name != "" && top.Bench != name && !strings.HasPrefix(top.Bench, name+"-")) {
		bad("bench %q, want %q or %q", top.Bench, name, name+"-VARIANT")
	}
	if top.Clock != ClockSimulated && top.Clock != ClockWall {
		bad("clock %q, want %q or %q", top.Clock, ClockSimulated, ClockWall)
	}
	disks := checkDisk(top.Disk, bad)
	if len(top.Rows) == 0 {
		bad("no rows")
	}
	for i, rr := range top.Rows {
		checkRow(i, rr, disks, bad)
	}
	return errors.Join(errs...)
}

// checkTopKeys: the required keys are there, nothing else, in order.
func checkTopKeys(keys []string, bad func(string, ...any)) {
	last := -1
	for _, k := range keys {
		i := slices.Index(topKeyOrder, k)
		if i < 0 {
			bad("unexpected top-level key %q", k)
			continue
		}
		if i < last {
			bad("top-level key %q out of order (want %v)", k, topKeyOrder)
		}
		last = i
	}
	for _, k := range []string{"bench", "disk", "clock", "rows"} {
		if !slices.Contains(keys, k) {
			bad("missing top-level key %q", k)
		}
	}
}

// checkDisk accepts one model ({"name": ..., ...}) or several keyed by
// name; it returns the names rows must use in their "disk" field (nil for
// one model).
func checkDisk(d map[string]json.RawMessage, bad func(string, ...any)) []string {
	if len(d) == 0 {
		bad("disk is empty")
		return nil
	}
	if _, ok := d["name"]; ok {
		return nil
	}
	var names []string
	for k, v := range d {
		var m map[string]any
		if json.Unmarshal(v, &m) != nil || m["name"] == nil {
			bad("disk has no name and %q is not a named model", k)
			continue
		}
		names = append(names, k)
	}
	return names
}

// checkRow: flat, snake_case, times in ms, parameters before metrics, and
// the disk named when the report has several.
func checkRow(i int, raw json.RawMessage, disks []string, bad func(string, ...any)) {
	keys, err := objectKeys(raw)
	if err != nil {
		bad("row %d: %v", i, err)
		return
	}
	var row map[string]any
	if err := json.Unmarshal(raw, &row); err != nil {
		bad("row %d: %v", i, err)
		return
	}
	firstMs := -1
	for j, k := range keys {
		if firstMs < 0 && strings.Contains(k, "_ms") {
			firstMs = j
		}
		checkKey(i, k, bad)
		switch v := row[k].(type) {
		case map[string]any, []any:
			bad("row %d: %q is not flat (%T)", i, k, v)
		case string:
			if firstMs >= 0 {
				bad("row %d: parameter %q after the metric %q (parameters first)", i, k, keys[firstMs])
			}
		}
	}
	if len(disks) > 0 {
		if d, _ := row["disk"].(string); !slices.Contains(disks, d) {
			bad("row %d: disk %q is not one of the report's disks %v", i, row["disk"], disks)
		}
	}
}

// checkKey: snake_case, and a time field names ms.
func checkKey(i int, k string, bad func(string, ...any)) {
	if !snakeCase.MatchString(k) {
		bad("row %d: key %q is not snake_case", i, k)
	}
	if strings.Contains(k, "_ms") {
		return
	}
	for _, u := range badTimeUnits {
		if strings.HasSuffix(k, u) {
			bad("row %d: %q: times are in ms, named *_ms", i, k)
			return
		}
	}
	if strings.HasSuffix(k, "_s") && !hasAnySuffix(k, rateSuffixes) {
		bad("row %d: %q: times are in ms, named *_ms (rates: %v)", i, k, rateSuffixes)
		return
	}
	for _, w := range timeWords {
		if strings.Contains(k, w) {
			bad("row %d: %q looks like a time without its unit (_ms)", i, k)
			return
		}
	}
}

func hasAnySuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}
