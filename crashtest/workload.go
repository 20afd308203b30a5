package crashtest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ErrBadWorkload is wrapped by every error about a workload's text.
var ErrBadWorkload = errors.New("crashtest: bad workload")

// Op is one operation of a workload: a kind and its arguments, as one line
// of the text format ("write A/foo 0 4096"). Paths are relative to the root
// and use "/" between names.
type Op struct {
	Kind string
	Args []string
}

// Workload is what one crash test runs. Setup runs first on a fresh image
// that is then unmounted cleanly: it is the durable starting point and is
// not recorded. Ops run on the crash-recording device.
type Workload struct {
	Name  string
	Setup []Op
	Ops   []Op
}

// opSpec is how many arguments an op kind takes and which are numbers.
type opSpec struct {
	min, max int
	nums     []int // indices of numeric arguments
	persist  bool  // a persistence point: the oracle snapshots after it
}

// specOf is the spec of an op kind of the text format (docs/crashtest.md).
func specOf(kind string) (opSpec, bool) {
	s, ok := map[string]opSpec{
		"creat":       {min: 1, max: 1},
		"tmpfile":     {min: 2, max: 2, nums: []int{1}},
		"mkdir":       {min: 1, max: 1},
		"write":       {min: 3, max: 3, nums: []int{1, 2}},
		"falloc":      {min: 3, max: 4, nums: []int{1, 2}},
		"copy":        {min: 5, max: 5, nums: []int{1, 2, 4}},
		"truncate":    {min: 2, max: 2, nums: []int{1}},
		"link":        {min: 2, max: 2},
		"unlink":      {min: 1, max: 1},
		"rmdir":       {min: 1, max: 1},
		"rename":      {min: 2, max: 2},
		"symlink":     {min: 2, max: 2},
		"setxattr":    {min: 3, max: 3},
		"removexattr": {min: 2, max: 2},
		"chmod":       {min: 2, max: 2},
		"fsync":       {min: 1, max: 1, persist: true},
		"fdatasync":   {min: 1, max: 1, persist: true},
		"sync":        {min: 0, max: 0, persist: true},
		// Not a persistence point: the compactor commits what it moves
		// (and the foreground state with it), but promises nothing.
		"compact": {min: 0, max: 1, nums: []int{0}},
	}[kind]
	return s, ok
}

// IsPersist says whether the op is a persistence point.
func (o Op) IsPersist() bool { s, _ := specOf(o.Kind); return s.persist }

// String is the op as one line of the text format.
func (o Op) String() string {
	return strings.Join(append([]string{o.Kind}, o.Args...), " ")
}

// parseOp reads one line (already trimmed, not a comment).
func parseOp(line string) (Op, error) {
	f := strings.Fields(line)
	spec, ok := specOf(f[0])
	if !ok {
		return Op{}, fmt.Errorf("unknown operation %q: %w", f[0], ErrBadWorkload)
	}
	op := Op{Kind: f[0], Args: f[1:]}
	if len(op.Args) < spec.min || len(op.Args) > spec.max {
		return Op{}, fmt.Errorf("%s takes %d-%d arguments, got %d: %w", op.Kind, spec.min, spec.max, len(op.Args), ErrBadWorkload)
	}
	for _, i := range spec.nums {
		if i >= len(op.Args) {
			continue // an optional argument left out
		}
		if n, err := strconv.ParseInt(op.Args[i], 10, 64); err != nil || n < 0 || n > maxOffset {
			return Op{}, fmt.Errorf("%s: argument %q is not a number in [0, %d]: %w", op.Kind, op.Args[i], maxOffset, ErrBadWorkload)
		}
	}
	if op.Kind == "compact" && len(op.Args) == 1 && (op.num(0) < 1 || op.num(0) > maxCompactSteps) {
		return Op{}, fmt.Errorf("compact of %d steps: want 1 to %d: %w", op.num(0), maxCompactSteps, ErrBadWorkload)
	}
	if (op.Kind == "write" || op.Kind == "copy") && op.num(2) > maxWrite {
		return Op{}, fmt.Errorf("%s of %d bytes: at most %d: %w", op.Kind, op.num(2), maxWrite, ErrBadWorkload)
	}
	if op.Kind == "tmpfile" && op.num(1) > maxWrite {
		return Op{}, fmt.Errorf("tmpfile of %d bytes: at most %d: %w", op.num(1), maxWrite, ErrBadWorkload)
	}
	if op.Kind == "falloc" && len(op.Args) == 4 {
		if _, ok := fallocMode(op.Args[3]); !ok {
			return Op{}, fmt.Errorf("falloc: the 4th argument can only be keep, punch, zero or zero-keep: %w", ErrBadWorkload)
		}
	}
	if op.Kind == "chmod" {
		if _, err := strconv.ParseUint(op.Args[1], 8, 12); err != nil {
			return Op{}, fmt.Errorf("chmod: %q is not an octal mode: %w", op.Args[1], ErrBadWorkload)
		}
	}
	return op, nil
}

// Limits of the text format: workloads stay test-sized.
const (
	maxOffset = 1 << 30
	maxWrite  = 1 << 20
)

// num is numeric argument i (validated by parseOp).
func (o Op) num(i int) int64 {
	n, _ := strconv.ParseInt(o.Args[i], 10, 64)
	return n
}

// setupMarker separates the setup part from the recorded part.
const setupMarker = "---"

// ParseWorkload reads the text format: one op per line, '#' starts a
// comment, a line "---" ends the setup part (without it everything is
// recorded), "# name: X" names the workload.
func ParseWorkload(r io.Reader) (Workload, error) {
	var w Workload
	var lines []Op
	sawMarker := false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "# name:"); ok {
			w.Name = strings.TrimSpace(name)
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line == setupMarker {
			if sawMarker {
				return Workload{}, fmt.Errorf("line %d: a second %q: %w", n, setupMarker, ErrBadWorkload)
			}
			sawMarker, w.Setup, lines = true, lines, nil
			continue
		}
		op, err := parseOp(line)
		if err != nil {
			return Workload{}, fmt.Errorf("line %d: %w", n, err)
		}
		lines = append(lines, op)
	}
	if err := sc.Err(); err != nil {
		return Workload{}, fmt.Errorf("reading workload: %w", err)
	}
	w.Ops = lines
	return w, nil
}

// ParseWorkloadString is ParseWorkload of a string.
func ParseWorkloadString(s string) (Workload, error) { return ParseWorkload(strings.NewReader(s)) }

// String is the workload in the text format; ParseWorkload reads it back.
func (w Workload) String() string {
	var b strings.Builder
	if w.Name != "" {
		fmt.Fprintf(&b, "# name: %s\n", w.Name)
	}
	if len(w.Setup) > 0 {
		for _, op := range w.Setup {
			fmt.Fprintln(&b, op)
		}
		fmt.Fprintln(&b, setupMarker)
	}
	for _, op := range w.Ops {
		fmt.Fprintln(&b, op)
	}
	return b.String()
}

// LoadWorkload reads a workload file; a file without a "# name:" line is
// named after the file.
func LoadWorkload(path string) (Workload, error) {
	f, err := os.Open(path)
	if err != nil {
		return Workload{}, err
	}
	defer f.Close()
	w, err := ParseWorkload(f)
	if err != nil {
		return Workload{}, fmt.Errorf("%s: %w", path, err)
	}
	if w.Name == "" {
		w.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return w, nil
}
