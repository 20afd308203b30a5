package rangedisk

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestChooseMatchesBruteForce: HRS with pruning finds a target exactly as
// cheap as evaluating every target, for random heads, times, descriptors,
// write sizes and alignments.
func TestChooseMatchesBruteForce(t *testing.T) {
	l := layout512(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 300 {
		h := disk.Head{Cyl: rng.IntN(l.NumCylinders()), Surf: rng.IntN(13)}
		start := rng.Float64() * 1000
		var rs []Extent
		for range 1 + rng.IntN(4) {
			b := rng.Int64N(l.NumBlocks() - 5000)
			rs = append(rs, Extent{b, b + 1 + rng.Int64N(3000)})
		}
		n := 1 + rng.IntN(8)
		align := 1 << rng.IntN(3)
		runs, err := List(rs...).Runs(l.NumBlocks(), n, align)
		if err != nil {
			continue
		}
		got, err := Choose(l, h, start, List(rs...), n, align)
		if err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		_, want := bruteBest(l, h, start, runs, n, align)
		if math.Abs(got.PositionMs-want) > 1e-9 {
			t.Fatalf("iter %d: HRS %.6f ms at %d, brute force %.6f ms", iter, got.PositionMs, got.Addr, want)
		}
		if got.Addr%int64(align) != 0 || !inRuns(runs, got.Addr, n) {
			t.Fatalf("iter %d: target %d (n=%d align=%d) not in %v", iter, got.Addr, n, align, runs)
		}
		if c := l.PositionMs(h, start, got.Addr, true); math.Abs(c-got.PositionMs) > 1e-9 {
			t.Fatalf("iter %d: reported %.6f ms, PositionMs says %.6f", iter, got.PositionMs, c)
		}
	}
}

// inRuns reports whether [s, s+n) lies inside one run.
func inRuns(runs []Extent, s int64, n int) bool {
	for _, e := range runs {
		if s >= e.Begin && s+int64(n) <= e.End {
			return true
		}
	}
	return false
}

// TestChoosePrunes: with a track-sized range on the head's own track and a
// big one far away, HRS estimates only what it must.
func TestChoosePrunes(t *testing.T) {
	l := layout512(t)
	h := disk.Head{Cyl: 0, Surf: 0}
	far := l.TrackStart(l.NumTracks() / 2)
	d := List(Extent{0, int64(l.TrackBlocks(0))}, Extent{far, far + 4096})
	got, err := Choose(l, h, 0, d, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Estimates != 1 || got.Addr >= far {
		t.Fatalf("estimates %d, target %d; want 1 estimate on track 0", got.Estimates, got.Addr)
	}
}
