package crashtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxShrinkRuns bounds the re-runs one shrink may take.
const maxShrinkRuns = 200

// Shrink removes ops (recorded ones first, then setup ones) one at a time
// while the workload still fails with the same rule, and returns the
// smallest failing workload found with one of its failures. It re-runs
// the whole check per candidate, so it is for failures only.
func Shrink(f Failure, cfg Config) Failure {
	cfg.Only, cfg.Modes = "", []string{f.Mode}
	best := f
	runs := 0
	for changed := true; changed && runs < maxShrinkRuns; {
		changed = false
		for _, cand := range candidates(best.Workload) {
			if runs++; runs > maxShrinkRuns {
				break
			}
			if g, ok := failsSame(cand, f.Rule, cfg); ok {
				best, changed = g, true
				break
			}
		}
	}
	return best
}

// candidates are w with one op removed, recorded ops first.
func candidates(w Workload) []Workload {
	var out []Workload
	for i := range w.Ops {
		c := w
		c.Ops = slices.Delete(slices.Clone(w.Ops), i, i+1)
		out = append(out, c)
	}
	for i := range w.Setup {
		c := w
		c.Setup = slices.Delete(slices.Clone(w.Setup), i, i+1)
		out = append(out, c)
	}
	return out
}

// failsSame runs w and returns a failure with the given rule, if any. A
// workload that cannot run (a setup op now fails) does not count.
func failsSame(w Workload, rule string, cfg Config) (Failure, bool) {
	res, err := CheckWorkload(w, cfg)
	if err != nil {
		return Failure{}, false
	}
	for _, f := range res.Failures {
		if f.Rule == rule {
			return f, true
		}
	}
	return Failure{}, false
}

// report shrinks the first failure of a workload, saves it and writes the
// replay command.
func report(fs []Failure, cfg Config) *Report {
	r := &Report{Failures: fs}
	f := fs[0]
	if !cfg.NoShrink {
		s := Shrink(f, cfg)
		s.Workload.Name = f.Workload.Name + "-min"
		r.Shrunk = &s
		f = s
	}
	file := f.Workload.Name + ".wl"
	if cfg.SaveDir != "" {
		path, err := save(f, cfg)
		if err != nil {
			r.Saved = "not saved: " + err.Error()
		} else {
			r.Saved, file = path, path
		}
	}
	r.Replay = ReplayCommand(file, f.Mode, f.State.String(), cfg)
	return r
}

// ReplayCommand is the one-line command that re-checks one crash state of
// a saved workload.
func ReplayCommand(file, mode, state string, cfg Config) string {
	cfg = cfg.withDefaults()
	return fmt.Sprintf("vlfs crashtest --workload %s --mode %s --seed %d --subsets %d --state '%s'", file, mode, cfg.Seed, cfg.Subsets, state)
}

// save writes the failing workload, with the failure as comments, to
// cfg.SaveDir/NAME.wl.
func save(f Failure, cfg Config) (string, error) {
	if err := os.MkdirAll(cfg.SaveDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(cfg.SaveDir, f.Workload.Name+".wl")
	var b strings.Builder
	fmt.Fprintf(&b, "# crash-test failure: rule %s in state %s (mode %s)\n", f.Rule, f.State, f.Mode)
	for _, line := range strings.Split(strings.TrimSpace(f.Detail), "\n") {
		if len(line) > 200 {
			line = line[:200] + "..."
		}
		fmt.Fprintf(&b, "#   %s\n", line)
	}
	fmt.Fprintf(&b, "# replay: %s\n", ReplayCommand(path, f.Mode, f.State.String(), cfg))
	b.WriteString(f.Workload.String())
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}
