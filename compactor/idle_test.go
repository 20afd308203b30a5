package compactor

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// keepOpen lets a test reopen a device after the disk on it is closed.
type keepOpen struct{ device.Device }

func (keepOpen) Close() error { return nil }

func TestThinkUsesIdleTime(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.8, 4)
	v := d.Volume()
	c, err := New(Logical(d), Config{Start: StartAlways, IdleDelayMs: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Shorter than the idle delay: no idle interval, no work.
	t0 := v.NowMs()
	if w, err := c.Think(1.5); w != 0 || err != nil || v.NowMs() != t0+1.5 || c.Stats().Steps != 0 {
		t.Fatalf("think 1.5 ms: wait %v, %v, clock +%v, %d steps", w, err, v.NowMs()-t0, c.Stats().Steps)
	}
	// A long interval: work, then the clock stands at its end plus the
	// wait for the step in flight.
	t1 := v.NowMs()
	w, err := c.Think(300)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Steps == 0 || s.BlocksMoved == 0 || s.IdleIntervals != 1 {
		t.Fatalf("no work in 300 ms: %+v", s)
	}
	if got := v.NowMs() - t1; math.Abs(got-(300+w)) > 1e-9 {
		t.Fatalf("clock moved %v ms, want 300 + wait %v", got, w)
	}
	if w > s.MaxStepMs || w != s.InterferenceMs || (w > 0) != (s.Interrupted == 1) {
		t.Fatalf("wait %v, stats %+v", w, s)
	}
	// Short intervals with every step started: the foreground waits, but
	// never for more than one step.
	for i := 0; i < 40; i++ {
		if _, err := c.Think(4); err != nil {
			t.Fatal(err)
		}
		if err := d.WriteSync(0, [][]byte{ref[0]}); err != nil {
			t.Fatal(err)
		}
	}
	s = c.Stats()
	if s.Interrupted < 5 || s.MaxInterferenceMs > s.MaxStepMs {
		t.Fatalf("interference %d times, max %.2f ms, longest step %.2f ms", s.Interrupted, s.MaxInterferenceMs, s.MaxStepMs)
	}
	checkContents(t, d, ref)
}

// TestPredictedStartSparesShortGaps: once it has seen that idle intervals
// are shorter than its steps, the compactor stops starting steps in them,
// and the foreground no longer waits; long intervals still get work.
func TestPredictedStartSparesShortGaps(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.8, 5)
	c, err := New(Logical(d), Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ { // learn: steps and intervals
		if _, err := c.Think(4); err != nil {
			t.Fatal(err)
		}
	}
	s0 := c.Stats()
	for i := 0; i < 30; i++ {
		if w, err := c.Think(4); w != 0 || err != nil {
			t.Fatalf("interval %d after learning: wait %v, %v", i, w, err)
		}
	}
	if s := c.Stats(); s.Steps != s0.Steps {
		t.Fatalf("%d steps started in 4 ms gaps after learning that steps take %.1f ms", s.Steps-s0.Steps, s.WorkMs/float64(s.Steps))
	}
	for i := 0; i < 5; i++ { // intervals grow: work resumes
		if _, err := c.Think(400); err != nil {
			t.Fatal(err)
		}
	}
	if s := c.Stats(); s.Steps == s0.Steps {
		t.Fatal("no work in long intervals")
	}
	checkContents(t, d, ref)
}

// TestRunCompactsWhenIdle runs the background loop on the real-time clock
// (every request sleeps its service time) against a foreground that
// writes now and then: it compacts in the gaps, the foreground's requests
// wait at most for a step, and it stops when asked.
func TestRunCompactsWhenIdle(t *testing.T) {
	dev := keepOpen{device.NewMem(8 << 20)}
	d, ref := fragmented(t, dev, 8<<20, 0.8, 6)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{Clock: vld.ClockReal})
	if err != nil {
		t.Fatal(err)
	}
	// StartAlways: this test is about the loop (work in the gaps, a wait
	// of at most one step, a clean stop), not the predictor, which
	// TestPredictedStartSparesShortGaps covers. With the predicted start,
	// once a 35 ms move was learnt against gaps of 0-40 ms nothing fitted
	// any more: make test's race pass failed with two steps in 10 s
	// (2026-11-29, twice).
	c, err := New(Logical(d), Config{IdleDelayMs: 2, TargetEmpty: 0.1, Start: StartAlways})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	rng := rand.New(rand.NewSource(6))
	// The loop ends once three tracks are empty, a fraction of a second
	// on a quiet machine; the deadline is for a loaded one (make test's
	// race pass runs five packages at once on two cores: 2 s gave the
	// compactor two steps, both interrupted, on 2026-11-29).
	deadline := time.Now().Add(10 * time.Second)
	var worst time.Duration
	for time.Now().Before(deadline) && c.Stats().TracksEmptied < 3 {
		l := rng.Int63n(int64(len(ref)))
		b := make([]byte, d.BlockSize())
		rng.Read(b[:16])
		ref[l] = b
		t0 := time.Now()
		if err := d.WriteSync(l, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
		worst = max(worst, time.Since(t0))
		time.Sleep(time.Duration(rng.Intn(40)) * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	t.Logf("background: %+v", s)
	if s.TracksEmptied == 0 || s.IdleIntervals == 0 {
		t.Fatalf("no background work: %+v", s)
	}
	// A write waits for at most one step (plus its own service and the
	// scheduling noise of a loaded machine).
	if limit := time.Duration((s.MaxStepMs + 50) * float64(time.Millisecond)); worst > limit {
		t.Fatalf("a foreground write took %v, longest step %.1f ms", worst, s.MaxStepMs)
	}
	// Check on the virtual clock (reads would sleep), after a reopen: what
	// was compacted is durable.
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if d, err = logical.Open(dev, vld.Options{}); err != nil {
		t.Fatal(err)
	}
	checkContents(t, d, ref)
}

func TestRunNeedsForeground(t *testing.T) {
	c, err := New(fakeSpace{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Run(context.Background()); !errors.Is(err, ErrNoForeground) {
		t.Fatalf("Run on a target without Activity: %v", err)
	}
}

// countingTarget counts the full looks (Space) and the O(1) ones
// (EmptyCount) the real-clock loop makes, and reports no foreground
// activity.
type countingTarget struct {
	Target
	spaces, counts atomic.Int64
}

func (c *countingTarget) Space(dst []vld.TrackSpace) ([]vld.TrackSpace, int) {
	c.spaces.Add(1)
	return c.Target.Space(dst)
}

func (c *countingTarget) EmptyCount() (int, int) {
	c.counts.Add(1)
	return c.Target.EmptyCount()
}

// wakingTarget is a countingTarget that is also a Waker (no request ever
// comes).
type wakingTarget struct {
	*countingTarget
	wake chan struct{}
}

func (w wakingTarget) Wake() <-chan struct{} { return w.wake }

func (c *countingTarget) Activity() (uint64, time.Time) { return 0, time.Time{} }

// TestRunIdleIsCheap holds the background loop on an idle target for a
// while: with enough empty tracks it must not look at every track at all,
// and when it cannot reach its target (nothing movable) it must back off
// instead of looking every millisecond (a 1 GiB image has 8,000 tracks to
// copy and sort per look; before the back-off an idle mount spent 8 % of
// a core on them). A Waker target must not even be polled every
// millisecond: an idle mount spent 4 % of a core on the timer wake-ups
// alone.
func TestRunIdleIsCheap(t *testing.T) {
	const run = 600 * time.Millisecond
	for _, tc := range []struct {
		name     string
		target   float64
		waker    bool
		maxLooks int64
		// maxWakes bounds the O(1) checks of a Waker target: 1+2+...+64 ms
		// and then every 100 ms is 12 in 600 ms.
		maxWakes int64
	}{
		// A fresh disk: everything is empty.
		{"target reached", 0.25, false, 0, -1},
		{"target reached, waker", 0.25, true, 0, 16},
		// No track can be emptied (every track is empty or nothing can
		// move, as on a fresh disk asked for 100 %): 1+2+4+...+64 ms and
		// then every 100 ms is 12 looks in 600 ms; allow for slow timers.
		{"nothing to do", 1, false, 16, -1},
		{"nothing to do, waker", 1, true, 16, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := fragmented(t, nil, 8<<20, 0, 1)
			ct := &countingTarget{Target: Logical(d)}
			var target Target = ct
			if tc.waker {
				target = wakingTarget{ct, make(chan struct{})}
			}
			c, err := New(target, Config{IdleDelayMs: 1, TargetEmpty: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), run)
			defer cancel()
			if err := c.Run(ctx); err != nil {
				t.Fatal(err)
			}
			looks, counts := ct.spaces.Load(), ct.counts.Load()
			t.Logf("%d full looks, %d empty-track counts in %v idle", looks, counts, run)
			if looks > tc.maxLooks {
				t.Fatalf("%d full looks at every track in %v of idle time, want at most %d", looks, run, tc.maxLooks)
			}
			if tc.maxWakes >= 0 && counts > tc.maxWakes {
				t.Fatalf("%d empty-track counts in %v of idle time, want at most %d: the loop polls instead of sleeping", counts, run, tc.maxWakes)
			}
		})
	}
}

// bumpTarget is a target whose foreground activity the test makes.
type bumpTarget struct {
	Target
	mu   sync.Mutex
	n    uint64
	last time.Time
	wake chan struct{}
}

func (b *bumpTarget) bump() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	b.last = time.Now()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *bumpTarget) Activity() (uint64, time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n, b.last
}

// TestRunSeesRequestsWhileBackingOff: the back-off between full looks must
// not make the loop deaf. Requests 20 ms apart, after a long idle time in
// which the back-off reached its longest, must each end an idle interval
// of their own in the predictor's history, not be swallowed into one long
// "idle" interval that the burst itself counts in (review of the first
// back-off, which slept up to 100 ms without looking for requests).
func TestRunSeesRequestsWhileBackingOff(t *testing.T) {
	for _, waker := range []bool{false, true} {
		t.Run(fmt.Sprintf("waker=%v", waker), func(t *testing.T) { runSeesRequests(t, waker) })
	}
}

// wakingBumpTarget signals each bump on its Wake channel.
type wakingBumpTarget struct{ *bumpTarget }

func (w wakingBumpTarget) Wake() <-chan struct{} { return w.wake }

func runSeesRequests(t *testing.T, waker bool) {
	d, _ := fragmented(t, nil, 8<<20, 0, 1)
	bt := &bumpTarget{Target: Logical(d), wake: make(chan struct{}, 1)}
	var target Target = bt
	if waker {
		target = wakingBumpTarget{bt}
	}
	// Target 1: a fresh disk offers nothing to move, so every step is
	// "done" and the back-off grows.
	c, err := New(target, Config{IdleDelayMs: 1, TargetEmpty: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	time.Sleep(450 * time.Millisecond)
	const requests = 5
	for i := 0; i < requests; i++ {
		bt.bump()
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// One interval ended by the first request, one by each later one.
	got := c.pred.idle.n
	t.Logf("%d idle intervals recorded, mean %.1f ms", got, c.pred.idle.mean)
	if got < requests-1 {
		t.Fatalf("%d idle intervals recorded for %d requests 20 ms apart after a long idle time: requests were missed", got, requests)
	}
}

// TestThinkRelistsStaleSource: an idle interval that ends halfway through
// a source track leaves its list to the next one; if the foreground has
// rewritten those blocks elsewhere meanwhile, moving them would find
// nothing to move, at no cost, and a few such steps in a row used to end
// the whole next interval with nothing done. Think lists the track again
// first.
func TestThinkRelistsStaleSource(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.8, 4)
	c, err := New(Logical(d), Config{Start: StartAlways, StepBlocks: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Step until a source track is read with at least 4 blocks still to
	// move (more than the 3 zero-cost steps that end an interval).
	for i := 0; !(c.src >= 0 && c.loaded && len(c.pending) >= 4); i++ {
		if i == 1000 {
			t.Fatal("no source track with 4 blocks to move")
		}
		if _, err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range c.pending {
		if err := d.WriteSync(b.Owner, [][]byte{ref[b.Owner]}); err != nil {
			t.Fatal(err)
		}
	}
	moved := c.Stats().BlocksMoved
	if _, err := c.Think(200); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().BlocksMoved - moved; got == 0 {
		t.Fatalf("200 ms idle after the source track's blocks were rewritten: nothing moved (stats %+v)", c.Stats())
	}
	checkContents(t, d, ref)
}

// TestRelistKeepsDeferredSource: a source track half moved with deferred
// (MoveLater) steps holds its old copies pinned until the commit; with no
// foreground in between, relisting it keeps the track, its list and what
// was read, and writes nothing. (Found in review: relist gave such tracks
// up and committed at the start of every interval.)
func TestRelistKeepsDeferredSource(t *testing.T) {
	d, ref := fragmented(t, nil, 8<<20, 0.8, 4)
	c, err := New(Logical(d), Config{Start: StartAlways, StepBlocks: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; !(c.src >= 0 && c.loaded && c.unsettled > 0 && len(c.pending) >= 2); i++ {
		if i == 1000 {
			t.Fatal("no half-moved source track with deferred moves")
		}
		if _, err := c.Step(); err != nil {
			t.Fatal(err)
		}
	}
	src, pending, w0 := c.src, slices.Clone(c.pending), d.Volume().Stats().BlocksWritten
	if err := c.relist(); err != nil {
		t.Fatal(err)
	}
	if c.src != src || !c.loaded || !slices.Equal(c.pending, pending) {
		t.Errorf("relist: track %d -> %d, loaded %v, %d blocks to move -> %d", src, c.src, c.loaded, len(pending), len(c.pending))
	}
	if w := d.Volume().Stats().BlocksWritten - w0; w != 0 {
		t.Errorf("relist wrote %d blocks", w)
	}
	checkContents(t, d, ref)
}
