package crashtest

import (
	"fmt"
	"math/rand"
	"runtime/debug"

	"github.com/vlfs/vlfs/vld/device"
)

// Failure is one crash state that broke a rule.
type Failure struct {
	Workload Workload
	Mode     string
	State    device.State
	Rule     string
	Detail   string
}

func (f Failure) String() string {
	return fmt.Sprintf("%s (%s): state %q: %s: %s", f.Workload.Name, f.Mode, f.State, f.Rule, f.Detail)
}

// WorkloadResult is what checking one workload found.
type WorkloadResult struct {
	States   int       // crash states checked
	Failing  int       // crash states that broke a rule
	Failures []Failure // at most one per rule and flush count, in state order
	Moved    int64     // blocks moved by compact ops, over all modes
	// RecordCommits: commits made as log records, over all modes
	RecordCommits int64
	// IdleModes counts the modes in which the workload ran compact ops
	// that moved nothing: its crash states then tested no compaction.
	IdleModes int
}

// CheckWorkload records w in each of cfg.Modes and checks its crash states
// (or only cfg.Only).
// An error means the workload could not be run at all (a bad workload, or
// the harness failed), not that vlfs broke a rule; a panic while
// recording is a RulePanic failure.
func CheckWorkload(w Workload, cfg Config) (WorkloadResult, error) {
	cfg = cfg.withDefaults()
	var res WorkloadResult
	for _, mode := range cfg.Modes {
		if err := checkMode(w, mode, cfg, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// checkMode checks w recorded in one mode, adding to res.
func checkMode(w Workload, mode string, cfg Config, res *WorkloadResult) (err error) {
	defer func() {
		if p := recover(); p != nil {
			res.Failing++
			res.Failures = append(res.Failures, Failure{Workload: w, Mode: mode, Rule: RulePanic,
				Detail: fmt.Sprintf("while recording: %v\n%s", p, debug.Stack())})
			err = nil
		}
	}()
	rec, err := Record(w, recordOptions{size: cfg.ImageSize, mode: mode, wrap: cfg.wrap})
	if err != nil {
		return fmt.Errorf("workload %s (%s): %w", w.Name, mode, err)
	}
	res.Moved += rec.comp.moved
	res.RecordCommits += rec.RecordCommits
	if rec.comp.ops > 0 && rec.comp.moved == 0 {
		res.IdleModes++
	}
	states, err := rec.states(cfg)
	if err != nil {
		return fmt.Errorf("workload %s (%s): %w", w.Name, mode, err)
	}
	seen := map[string]bool{}
	for _, s := range states {
		res.States++
		v := rec.Verify(s)
		if v.OK {
			continue
		}
		res.Failing++
		key := fmt.Sprintf("%s/%d", v.Rule, s.Flushes)
		if seen[key] {
			continue
		}
		seen[key] = true
		res.Failures = append(res.Failures, Failure{Workload: w, Mode: mode, State: s, Rule: v.Rule, Detail: v.Detail})
	}
	return nil
}

// states lists the crash states to check: all of them (device.States with
// cfg.Subsets random subsets per epoch, seeded), or the one in cfg.Only.
func (r *Recording) states(cfg Config) ([]device.State, error) {
	if cfg.Only == "" {
		return r.Dev.States(rand.New(rand.NewSource(cfg.Seed)), cfg.Subsets), nil
	}
	s, err := device.ParseState(cfg.Only)
	if err != nil {
		return nil, err
	}
	if _, err := r.Dev.Image(s); err != nil {
		return nil, fmt.Errorf("state %q does not fit this recording (%d flushes, %d ops): %w",
			cfg.Only, r.Dev.Flushes(), len(r.Dev.Ops()), err)
	}
	return []device.State{s}, nil
}
