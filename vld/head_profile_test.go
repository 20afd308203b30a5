package vld

import (
	"errors"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// synthProfile builds a profile of 4 KiB writes whose mean (and median)
// cell [i][j] is cost(i, j): think i ms, skip j blocks.
func synthProfile(thinks, skips int, cost func(i, j int) float64) *profile.Profile {
	p := &profile.Profile{
		Format: profile.Format, Version: profile.Version,
		Meta: profile.Meta{Target: "synthetic", Kind: profile.KindSim, Clock: profile.ClockSimulated, BlockBytes: 4096,
			Date: "2026-11-22T00:00:00Z", Repetitions: 1},
		Grid: profile.Grid{SkipStepBytes: 4096, Skips: skips, ThinkStepMs: 1, Thinks: thinks},
	}
	for i := 0; i < thinks; i++ {
		row := make([]float64, skips)
		for j := range row {
			row[j] = cost(i, j)
		}
		p.MedianMs = append(p.MedianMs, row)
		p.MeanMs = append(p.MeanMs, row)
		p.SpreadMs = append(p.SpreadMs, make([]float64, skips))
	}
	return p
}

// vee is cheapest (1 ms) at skip best, dearer by 0.1 ms per block after
// it, and 5 ms before it (a missed revolution).
func vee(best int) func(j int) float64 {
	return func(j int) float64 {
		if j < best {
			return 5
		}
		return 1 + 0.1*float64(j-best)
	}
}

// headFixture is an allocator and mech on 20000 blocks of an ST19101 (32
// blocks per track) with a profiled head whose cheapest skip is 3 blocks
// at think 0 and 6 blocks at think 1 ms; the last request ended at block
// 100 (track 3) at 10 ms.
func headFixture(t *testing.T, threshold float64) (*profiledHead, *alloc.Allocator, *mech) {
	t.Helper()
	l, err := disk.NewLayout(testModel(t, "st19101"), 4096, 20000)
	if err != nil {
		t.Fatal(err)
	}
	a, m := alloc.New(l, threshold), newMech(l, ClockVirtual)
	p := synthProfile(3, 64, func(i, j int) float64 { return vee(3 + 3*i)(j) })
	ph, err := newProfiledHead(p, m, 4096)
	if err != nil {
		t.Fatal(err)
	}
	m.last = lastIO{end: 100, endMs: 10, seq: 1}
	return ph, a, m
}

func TestProfiledHeadChoose(t *testing.T) {
	ph, a, m := headFixture(t, -1)
	ovh := m.overheadMs(true)
	pick := func(startMs float64, n int, w alloc.Window) int64 {
		t.Helper()
		return ph.Choose(a, disk.Head{Cyl: 1000}, startMs, n, w).Block // the head position must not matter
	}
	at := func(think float64) float64 { return 10 + think + ovh }
	cases := []struct {
		name  string
		used  []int64
		think float64
		n     int
		w     alloc.Window
		want  int64
	}{
		{"cheapest skip at think 0", nil, 0, 1, alloc.Window{}, 103},
		{"cheapest skip at think 1 ms", nil, 1, 1, alloc.Window{}, 106},
		{"think between rows takes the nearest", nil, 0.6, 1, alloc.Window{}, 106},
		{"think beyond the grid: the mean row, where skip 9 is never a miss", nil, 50, 1, alloc.Window{}, 109},
		{"cheapest block used: the one just after", []int64{103}, 0, 1, alloc.Window{}, 104},
		{"a run needs all its blocks free", []int64{103, 105}, 0, 2, alloc.Window{}, 106},
		{"a run never spans tracks", nil, 0, 31, alloc.Window{}, 128},
		{"outside the window: first free block in it", nil, 0, 1, alloc.Window{Start: 100, N: 2}, 3200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, b := range c.used {
				a.MarkUsed(b)
				defer a.MarkFree(b)
			}
			ph.plan = plannedRun{}
			if got := pick(at(c.think), c.n, c.w); got != c.want {
				t.Fatalf("chose block %d, want %d", got, c.want)
			}
		})
	}
	t.Run("range full: first free block after it", func(t *testing.T) {
		for b := int64(100); b < 100+64; b++ {
			a.MarkUsed(b)
			defer a.MarkFree(b)
		}
		if got := pick(at(0), 1, alloc.Window{}); got != 164 {
			t.Fatalf("chose %d, want 164", got)
		}
	})
	t.Run("a later run of the same request follows the first", func(t *testing.T) {
		ph.plan = plannedRun{}
		first := ph.Choose(a, disk.Head{}, at(0), 4, alloc.Window{})
		second := ph.Choose(a, disk.Head{}, at(0)+first.Cost+1, 1, alloc.Window{})
		if first.Block != 103 || second.Block != 103+4+3 {
			t.Fatalf("runs at %d and %d, want 103 and 110", first.Block, second.Block)
		}
		m.last.note(103, 4, 11) // served: the next request anchors on it
		if got := pick(11+ovh, 1, alloc.Window{}); got != 110 {
			t.Fatalf("after the request was served: %d, want 110", got)
		}
	})
	if a.Decisions() == 0 {
		t.Error("decisions not counted")
	}
}

// TestProfiledHeadAvoidsEmpty: with avoid-empty on, the profiled head
// takes a free block of a track in use even when one on an empty track is
// cheaper, as the allocator's own choice does.
func TestProfiledHeadAvoidsEmpty(t *testing.T) {
	ph, a, m := headFixture(t, 0.75)
	for b := int64(96); b < 100; b++ { // track 3 (blocks 96-127) holds data
		a.MarkUsed(b)
	}
	ph.table[0][30] = 0.5 // block 130, on the empty track 4, is the cheapest of all
	a.SetAvoidEmpty(true)
	got := ph.Choose(a, disk.Head{}, 10+m.overheadMs(true), 1, alloc.Window{}).Block
	if tr := ph.m.l.TrackOf(got); got < 0 || a.TrackFree(tr) == a.TrackCap(tr) {
		t.Fatalf("chose block %d on track %d, an empty track, with avoid-empty on", got, tr)
	}
	a.SetAvoidEmpty(false)
	if got := ph.Choose(a, disk.Head{}, 10+m.overheadMs(true), 1, alloc.Window{}).Block; got != 130 {
		t.Fatalf("avoid-empty off: chose %d, want the cheapest, 130", got)
	}
}

// TestProfiledHeadFillsActiveTrackFirst: with a fill threshold and empty
// tracks, free space is managed as for the oracle: the active track, then
// empty tracks, then anything, the profile choosing within each class.
func TestProfiledHeadFillsActiveTrackFirst(t *testing.T) {
	for _, c := range []struct {
		threshold float64
		want      int64
	}{{0.75, 103}, {-1, 130}} {
		ph, a, m := headFixture(t, c.threshold)
		for b := int64(96); b < 100; b++ { // track 3 (blocks 96-127) holds data and is active
			a.MarkUsed(b)
		}
		a.NoteWrite(3)
		ph.table[0][30] = 0.5 // block 130, on the empty track 4, is the cheapest of all
		if got := ph.Choose(a, disk.Head{}, 10+m.overheadMs(true), 1, alloc.Window{}).Block; got != c.want {
			t.Errorf("threshold %v: chose %d, want %d", c.threshold, got, c.want)
		}
	}
}

func TestOpenRejectsProfileOfAnotherBlockSize(t *testing.T) {
	p := synthProfile(1, 4, func(int, int) float64 { return 1 })
	p.Meta.BlockBytes = 512
	dev := device.NewMem(16 << 20)
	if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dev, Options{Head: p}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("open with a 512-byte profile on 4 KiB blocks: %v", err)
	}
	p.Meta.BlockBytes, p.Version = 4096, 99
	if _, err := Open(dev, Options{Head: p}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("open with an invalid profile: %v", err)
	}
}

// BenchmarkProfiledHeadDecision measures one placement decision of the
// profiled head on the setting of vld/alloc's BenchmarkAllocatorDecision (4 GiB
// st19101, 90 % utilisation), with a profile of 160 skips x 401 think
// times, on the wall clock.
func BenchmarkProfiledHeadDecision(b *testing.B) {
	l, err := disk.NewLayout(testModel(b, "st19101"), 4096, 1<<20)
	if err != nil {
		b.Fatal(err)
	}
	a, m := alloc.New(l, 0.75), newMech(l, ClockVirtual)
	rng := rand.New(rand.NewSource(1))
	p := synthProfile(401, 161, func(i, j int) float64 { return rng.Float64() * 6 })
	p.Grid.ThinkStepMs = 0.05
	ph, err := newProfiledHead(p, m, 4096)
	if err != nil {
		b.Fatal(err)
	}
	for blk := int64(0); blk < l.NumBlocks(); blk++ {
		if rng.Float64() < 0.9 {
			a.MarkUsed(blk)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c := ph.Choose(a, disk.Head{}, m.now+0.1, 1, alloc.Window{})
		lat = append(lat, time.Since(t0))
		a.MarkUsed(c.Block)
		for {
			r := rng.Int63n(l.NumBlocks())
			if r >= 4 && a.IsUsed(r) && r != c.Block {
				a.MarkFree(r)
				break
			}
		}
		m.now += rng.Float64() * 3
		m.last.note(c.Block, 1, m.now)
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1000, "median-µs/decision(wall)")
}

// TestProfiledHeadRealClockThinkTime: on the real-time clock the think
// time is the wall time since the last request, even before simulated
// time has caught up with it.
func TestProfiledHeadRealClockThinkTime(t *testing.T) {
	ph, a, m := headFixture(t, -1)
	m.clock = ClockReal
	m.start = time.Now().Add(-11 * time.Millisecond) // the wall clock is 1 ms past the last request's end
	// 106 is the think-1-ms skip (109 if the test was slow by 0.5 ms);
	// the stale simulated clock would say think 0, skip 103.
	if got := ph.Choose(a, disk.Head{}, 10+m.overheadMs(true), 1, alloc.Window{}).Block; got != 106 && got != 109 {
		t.Fatalf("chose %d, want 106", got)
	}
}

// TestProfiledHeadFlatProfileGoesInAddressOrder: a profile whose cells
// differ only by noise (an SSD's, the host's file) makes the head take the
// next free block after the last write, not the noise's cheapest cell; a
// profile with the same dip and no noise is not flat and takes the dip.
func TestProfiledHeadFlatProfileGoesInAddressOrder(t *testing.T) {
	for _, seed := range testSeeds(t) {
		flatProfileCase(t, seed)
	}
}

func flatProfileCase(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	noisy := func(i, j int) float64 {
		if j == 7 {
			return 0.09 // the cheapest cell, by noise
		}
		return 0.1 + 0.01*rng.Float64()
	}
	l, err := disk.NewLayout(testModel(t, "st19101"), 4096, 20000)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		spread float64
		flat   bool
		want   int64
	}{
		{0.03, true, 100},   // noise 30 %: flat, next free block
		{0, false, 100 + 7}, // no noise: the dip is real
	} {
		p := synthProfile(3, 64, noisy)
		for i := range p.SpreadMs {
			for j := range p.SpreadMs[i] {
				p.SpreadMs[i][j] = c.spread
			}
		}
		if got := p.Summarize().Flat; got != c.flat {
			t.Fatalf("spread %v: Flat = %v, want %v", c.spread, got, c.flat)
		}
		a, m := alloc.New(l, -1), newMech(l, ClockVirtual)
		ph, err := newProfiledHead(p, m, 4096)
		if err != nil {
			t.Fatal(err)
		}
		m.last = lastIO{end: 100, endMs: 10, seq: 1}
		for k := 0; k < 3; k++ {
			ph.plan = plannedRun{} // each choice is a new request's
			got := ph.Choose(a, disk.Head{}, 10+float64(k)+m.overheadMs(true), 1, alloc.Window{}).Block
			if got != c.want {
				t.Errorf("seed %d (replay: -vld.seed %d): spread %v, think %d ms: chose block %d, want %d", seed, seed, c.spread, k, got, c.want)
			}
		}
	}
}

func TestVolumeNamesItsHeadModel(t *testing.T) {
	dip := synthProfile(2, 8, func(i, j int) float64 { return vee(3)(j) })
	flat := synthProfile(2, 8, func(int, int) float64 { return 1 })
	for _, c := range []struct {
		head *profile.Profile
		want string
	}{{nil, "simulated"}, {dip, "profile"}, {flat, "profile (flat)"}} {
		dev := device.NewMem(16 << 20)
		if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
			t.Fatal(err)
		}
		v, err := Open(dev, Options{Head: c.head})
		if err != nil {
			t.Fatal(err)
		}
		if got := v.HeadModel(); got != c.want {
			t.Errorf("HeadModel = %q, want %q", got, c.want)
		}
		if got := v.Stats().HeadModel; got != c.want {
			t.Errorf("Stats().HeadModel = %q, want %q", got, c.want)
		}
		if err := v.Check(nil); err != nil {
			t.Error(err)
		}
		v.Close()
	}
}

// TestSimulatedHeadRealClockLag: on the real-time clock the oracle places
// a write where the head is now, after the think time since the last
// request, not where it was when that request ended (mech.now, which
// catches up only when the next request is served).
func TestSimulatedHeadRealClockLag(t *testing.T) {
	l, err := disk.NewLayout(testModel(t, "st19101"), 4096, 20000)
	if err != nil {
		t.Fatal(err)
	}
	const thinkMs = 2.0 // a third of a 6 ms revolution: about 11 of 32 blocks
	for _, c := range []struct {
		clock Clock
		lag   bool
	}{{ClockVirtual, false}, {ClockReal, true}} {
		a, m := alloc.New(l, -1), newMech(l, c.clock)
		m.now = 10
		m.start = time.Now().Add(-time.Duration((m.now + thinkMs) * float64(time.Millisecond)))
		ovh := m.overheadMs(true)
		got := simulatedHead{m: m}.Choose(a, disk.Head{}, m.now+ovh, 1, alloc.Window{}).Block
		stale := a.Choose(disk.Head{}, m.now+ovh, 1, alloc.Window{}).Block
		fresh := a.Choose(disk.Head{}, m.now+thinkMs+ovh, 1, alloc.Window{}).Block
		tb := int64(l.TrackBlocks(0))
		dist := func(x, y int64) int64 { // blocks apart on one track, either way round
			d := ((x-y)%tb + tb) % tb
			return min(d, tb-d)
		}
		if stale == fresh {
			t.Fatalf("the fixture does not separate the two answers (%d)", stale)
		}
		want := stale
		if c.lag {
			want = fresh
		}
		// A few blocks of slack: the wall clock moves while the test runs.
		if dist(got, want) > 3 {
			t.Errorf("clock %v: chose block %d; stale start gives %d, the wall clock's %d", c.clock, got, stale, fresh)
		}
	}
}
