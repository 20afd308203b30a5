package compactor

import "testing"

// TestCompactReachesTarget compacts a fragmented disk offline: empty
// tracks go from none to the target (or as many as holes allow), every
// block keeps its contents, the invariants hold, and the durable state
// after a reopen is the same.
func TestCompactReachesTarget(t *testing.T) {
	for _, p := range []Policy{CostBenefit, Random} {
		t.Run(p.String(), func(t *testing.T) {
			d, ref := fragmented(t, nil, 8<<20, 0.8, 1)
			v := d.Volume()
			before := v.EmptyTracks()
			c, err := New(Logical(d), Config{Policy: p, TargetEmpty: 0.15})
			if err != nil {
				t.Fatal(err)
			}
			var last Progress
			steps := 0
			if err := c.Compact(func(pr Progress) { last = pr; steps++ }); err != nil {
				t.Fatal(err)
			}
			s := c.Stats()
			target := c.Config().targetTracks(v.NumTracks())
			t.Logf("%s: empty tracks %d -> %d (target %d), %d blocks moved, %d tracks emptied, %d steps, %.0f ms simulated, %d without holes",
				p, before, v.EmptyTracks(), target, s.BlocksMoved, s.TracksEmptied, s.Steps, s.WorkMs, s.NoHoles)
			if v.EmptyTracks() < target && s.NoHoles == 0 {
				t.Fatalf("stopped at %d empty tracks, target %d, with holes left", v.EmptyTracks(), target)
			}
			if v.EmptyTracks() <= before || s.TracksEmptied == 0 || s.BlocksMoved == 0 {
				t.Fatalf("no progress: %+v", s)
			}
			if steps != int(s.Steps) && steps != int(s.Steps)+1 {
				t.Fatalf("%d progress calls for %d steps", steps, s.Steps)
			}
			if last.BlocksMoved != s.BlocksMoved || last.TracksDone != s.TracksEmptied {
				t.Fatalf("last progress %+v disagrees with stats %+v", last, s)
			}
			if s.BlocksMoved > s.Steps*int64(c.Config().StepBlocks) {
				t.Fatalf("%d blocks in %d steps of at most %d", s.BlocksMoved, s.Steps, c.Config().StepBlocks)
			}
			checkContents(t, d, ref)
			// Done means done: another call does nothing.
			if done, err := c.Step(); !done || err != nil {
				t.Fatalf("step after the end: %v %v", done, err)
			}
		})
	}
}

// TestCostBenefitMovesLess: to gain the same number of empty tracks,
// cost-benefit moves fewer blocks than random choice.
func TestCostBenefitMovesLess(t *testing.T) {
	moved := map[Policy]float64{}
	for _, p := range []Policy{CostBenefit, Random} {
		d, _ := fragmented(t, nil, 8<<20, 0.8, 2)
		before := d.Volume().EmptyTracks()
		c, err := New(Logical(d), Config{Policy: p, TargetEmpty: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Compact(nil); err != nil {
			t.Fatal(err)
		}
		gained := d.Volume().EmptyTracks() - before
		if gained <= 0 {
			t.Fatalf("%s gained no empty track", p)
		}
		moved[p] = float64(c.Stats().BlocksMoved) / float64(gained)
	}
	t.Logf("blocks moved per empty track gained: cost-benefit %.1f, random %.1f", moved[CostBenefit], moved[Random])
	if moved[CostBenefit] >= moved[Random] {
		t.Fatalf("cost-benefit moved %.1f blocks per track gained, random %.1f", moved[CostBenefit], moved[Random])
	}
}

// TestStepsAreSmall: a read step is one request, or two when the head
// lands inside the span (vld.Volume.ReadRun reads from there on), and
// writes nothing; a move step moves at most StepBlocks blocks and never
// writes into an empty track.
func TestStepsAreSmall(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.8, 3)
	v := d.Volume()
	c, err := New(Logical(d), Config{StepBlocks: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		before, _ := v.Space(nil)
		s0, vs0 := c.Stats(), v.Stats()
		done, err := c.Step()
		if err != nil || done {
			t.Fatalf("step %d: done %v, %v", i, done, err)
		}
		s1, vs1 := c.Stats(), v.Stats()
		if s1.ReadSteps > s0.ReadSteps {
			if r := vs1.Reads - vs0.Reads; r < 1 || r > 2 || vs1.Writes != vs0.Writes {
				t.Fatalf("read step %d: %d reads, %d writes", i, vs1.Reads-vs0.Reads, vs1.Writes-vs0.Writes)
			}
			continue
		}
		if n := s1.BlocksMoved - s0.BlocksMoved; n > 2 {
			t.Fatalf("move step %d moved %d blocks", i, n)
		}
		after, _ := v.Space(nil)
		for tr := range after {
			if before[tr].Empty() && !after[tr].Empty() && !after[tr].InLogWindow {
				t.Fatalf("step %d wrote into empty track %d outside the log window", i, tr)
			}
		}
	}
	checkContents(t, d, ref)
}

// TestSettleDefault: a zero SettleBlocks takes the target's own default
// (the logical disk commits once per source track); a set one wins.
func TestSettleDefault(t *testing.T) {
	d, _ := fragmented(t, nil, 4<<20, 0.5, 1)
	for _, tc := range []struct{ in, want int }{{0, 1}, {8, 8}, {1, 1}} {
		c, err := New(Logical(d), Config{SettleBlocks: tc.in})
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Config().SettleBlocks; got != tc.want {
			t.Errorf("SettleBlocks %d on a logical disk: got %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestStuckSaysWhy: on a disk too full to reach its target the compactor
// stops and Stats.Stuck says why; one that reaches its target says
// nothing.
func TestStuckSaysWhy(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.97, 3)
	c, err := New(Logical(d), Config{TargetEmpty: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(nil); err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	t.Logf("97%% full, target 90%% of tracks empty: %d empty, stuck: %q", s.EmptyTracks, s.Stuck)
	if s.EmptyTracks >= s.TargetTracks || s.Stuck == "" {
		t.Fatalf("unreachable target: %d of %d empty tracks, stuck %q", s.EmptyTracks, s.TargetTracks, s.Stuck)
	}
	checkContents(t, d, ref)

	d, _ = fragmented(t, nil, 8<<20, 0.5, 3)
	if c, err = New(Logical(d), Config{TargetEmpty: 0.1}); err != nil {
		t.Fatal(err)
	}
	if err := c.Compact(nil); err != nil {
		t.Fatal(err)
	}
	if s := c.Stats(); s.EmptyTracks < s.TargetTracks || s.Stuck != "" {
		t.Fatalf("reachable target: %d of %d empty tracks, stuck %q", s.EmptyTracks, s.TargetTracks, s.Stuck)
	}
}
