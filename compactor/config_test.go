package compactor

import (
	"errors"
	"math"
	"testing"
)

func TestConfigDefaultsAndErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   Config
		ok   bool
		want Config
	}{
		{"zero is the default", Config{}, true, Config{StepBlocks: DefaultStepBlocks, TargetEmpty: DefaultTargetEmpty, IdleDelayMs: DefaultIdleDelayMs, SettleBlocks: DefaultSettleBlocks}},
		{"negative delay means at once", Config{IdleDelayMs: -1}, true, Config{StepBlocks: DefaultStepBlocks, TargetEmpty: DefaultTargetEmpty, SettleBlocks: DefaultSettleBlocks}},
		{"all tracks", Config{TargetEmpty: 1, StepBlocks: 1, Policy: Random, Start: StartAlways, SettleBlocks: 1}, true, Config{StepBlocks: 1, TargetEmpty: 1, IdleDelayMs: DefaultIdleDelayMs, Policy: Random, Start: StartAlways, SettleBlocks: 1}},
		{"negative step", Config{StepBlocks: -2}, false, Config{}},
		{"negative settle", Config{SettleBlocks: -1}, false, Config{}},
		{"target above 1", Config{TargetEmpty: 1.5}, false, Config{}},
		{"negative target", Config{TargetEmpty: -0.1}, false, Config{}},
		{"infinite delay", Config{IdleDelayMs: math.Inf(1)}, false, Config{}},
		{"unknown policy", Config{Policy: 9}, false, Config{}},
		{"unknown start", Config{Start: 9}, false, Config{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.WithDefaults()
			if !tc.ok {
				if !errors.Is(err, ErrConfig) {
					t.Fatalf("got %+v, %v; want ErrConfig", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseNames(t *testing.T) {
	for _, tc := range []struct {
		in     string
		policy Policy
		ok     bool
	}{{"", CostBenefit, true}, {"cost-benefit", CostBenefit, true}, {"random", Random, true}, {"greedy", 0, false}} {
		p, err := ParsePolicy(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (p != tc.policy || p.String() != map[bool]string{true: "random", false: "cost-benefit"}[p == Random])) {
			t.Errorf("ParsePolicy(%q) = %v, %v", tc.in, p, err)
		}
	}
	for _, tc := range []struct {
		in    string
		start Start
		ok    bool
	}{{"", StartPredicted, true}, {"predicted", StartPredicted, true}, {"always", StartAlways, true}, {"never", 0, false}} {
		s, err := ParseStart(tc.in)
		if (err == nil) != tc.ok || (tc.ok && s != tc.start) {
			t.Errorf("ParseStart(%q) = %v, %v", tc.in, s, err)
		}
		if tc.ok && tc.in != "" && s.String() != tc.in {
			t.Errorf("%v.String() = %q", s, s.String())
		}
	}
}
