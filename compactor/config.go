package compactor

import (
	"errors"
	"fmt"
	"math"
)

// ErrConfig rejects a bad Config or policy name.
var ErrConfig = errors.New("compactor: invalid configuration")

// ErrNoForeground is returned by Run for a target that cannot report
// foreground activity (it does not implement Foreground).
var ErrNoForeground = errors.New("compactor: target does not report foreground activity")

// Policy chooses the next source track.
type Policy uint8

const (
	// CostBenefit (the default) empties first the track that frees the
	// most space per live block moved; among equals, the one unchanged
	// longest (the oldest).
	CostBenefit Policy = iota
	// Random picks among tracks with free space uniformly, as the paper's
	// compactor did: kept to compare against.
	Random
)

// ParsePolicy reads "cost-benefit" or "random".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "cost-benefit", "":
		return CostBenefit, nil
	case "random":
		return Random, nil
	}
	return 0, fmt.Errorf("policy %q: want cost-benefit or random: %w", s, ErrConfig)
}

func (p Policy) String() string {
	if p == Random {
		return "random"
	}
	return "cost-benefit"
}

// Start says when the compactor starts a step inside an idle interval.
type Start uint8

const (
	// StartPredicted (the default) starts a step only if the idle
	// interval, predicted from the lengths of the recent ones, leaves room
	// for it: short gaps then cost the foreground nothing.
	StartPredicted Start = iota
	// StartAlways starts steps until the foreground returns, which then
	// waits for the step in flight (the paper's compactor).
	StartAlways
)

// ParseStart reads "predicted" or "always".
func ParseStart(s string) (Start, error) {
	switch s {
	case "predicted", "":
		return StartPredicted, nil
	case "always":
		return StartAlways, nil
	}
	return 0, fmt.Errorf("start %q: want predicted or always: %w", s, ErrConfig)
}

func (s Start) String() string {
	if s == StartAlways {
		return "always"
	}
	return "predicted"
}

// Defaults of Config's zero fields.
const (
	DefaultStepBlocks  = 4
	DefaultTargetEmpty = 0.25
	DefaultIdleDelayMs = 1.0
	// DefaultSettleBlocks: measured on vlfs in docs/compactor.md
	// ("Commit every 32 moves, ..."); 1 is once per source track. A target may
	// have its own (SettleDefaulter).
	DefaultSettleBlocks = 32
)

// Config tunes a compactor. The zero value is the default.
type Config struct {
	Policy Policy
	// StepBlocks is how many blocks one move step relocates (and commits
	// together); 0 means DefaultStepBlocks.
	StepBlocks int
	// TargetEmpty is the fraction of all tracks the compactor keeps
	// empty: it stops once that many are. 0 means DefaultTargetEmpty; 1
	// means as many as it can make.
	TargetEmpty float64
	// IdleDelayMs: an idle interval starts when no foreground request has
	// arrived for this long (simulated ms on the virtual clock, wall ms
	// for Run). 0 means DefaultIdleDelayMs; negative means at once.
	IdleDelayMs float64
	// Start says whether a step may start when the idle interval will
	// probably end before it does.
	Start Start
	// Seed drives the Random policy.
	Seed int64
	// CommitEachStep makes a Settler target commit every move step, as
	// targets without deferred commits do. By default a Settler commits
	// once per source track: its last step, or when the track is given up
	// (docs/compactor.md, "Commit once per source track").
	CommitEachStep bool
	// SettleBlocks: a Settler target commits at the end of the first
	// source track after at least this many blocks moved since its last
	// commit, so that holders many moves share (indirect blocks, inode
	// blocks, the inode map's pieces) are written once for all of them. 1
	// commits once per source track; 0 means the target's default
	// (SettleDefaulter), else DefaultSettleBlocks.
	SettleBlocks int
}

// WithDefaults returns c with its zero fields set to the defaults, or an
// error wrapping ErrConfig if a field is out of range.
func (c Config) WithDefaults() (Config, error) {
	if c.StepBlocks == 0 {
		c.StepBlocks = DefaultStepBlocks
	}
	if c.TargetEmpty == 0 {
		c.TargetEmpty = DefaultTargetEmpty
	}
	if c.IdleDelayMs == 0 {
		c.IdleDelayMs = DefaultIdleDelayMs
	}
	if c.SettleBlocks == 0 {
		c.SettleBlocks = DefaultSettleBlocks
	}
	if c.IdleDelayMs < 0 {
		c.IdleDelayMs = 0
	}
	switch {
	case c.StepBlocks < 0:
		return c, fmt.Errorf("step blocks %d: must be positive: %w", c.StepBlocks, ErrConfig)
	case c.SettleBlocks < 0:
		return c, fmt.Errorf("settle blocks %d: must be positive: %w", c.SettleBlocks, ErrConfig)
	case !(c.TargetEmpty > 0 && c.TargetEmpty <= 1):
		return c, fmt.Errorf("target empty fraction %v: must be in (0, 1]: %w", c.TargetEmpty, ErrConfig)
	case math.IsInf(c.IdleDelayMs, 0) || math.IsNaN(c.IdleDelayMs):
		return c, fmt.Errorf("idle delay %v ms: must be finite: %w", c.IdleDelayMs, ErrConfig)
	case c.Policy > Random:
		return c, fmt.Errorf("policy %d: %w", c.Policy, ErrConfig)
	case c.Start > StartAlways:
		return c, fmt.Errorf("start %d: %w", c.Start, ErrConfig)
	}
	return c, nil
}

// targetTracks is how many empty tracks the compactor aims at.
func (c Config) targetTracks(ntracks int) int {
	return int(math.Ceil(c.TargetEmpty * float64(ntracks)))
}
