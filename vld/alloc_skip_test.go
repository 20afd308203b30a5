package vld

import (
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// fullSweep is search without skipping: every cylinder ahead priced, then
// every one from the first (the reference for nextCandidate).
func fullSweep(a *allocator, h disk.Head, start float64, n int, w window, fill bool) choice {
	best := noChoice
	ncyl := a.l.NumCylinders()
	for c := h.Cyl; c < ncyl; c++ {
		if c > h.Cyl && a.seekBound(c-h.Cyl) >= best.cost {
			return best
		}
		best = a.bestInCylinder(c, h, start, n, w, fill, best)
	}
	for c := 0; c < h.Cyl && best.block < 0; c++ {
		best = a.bestInCylinder(c, h, start, n, w, fill, best)
	}
	return best
}

// TestSkippedCylindersChangeNothing: a search that skips cylinders outside
// the log window and its extra tracks, and, while filling, cylinders with
// no empty or active track, chooses what the full sweep chooses.
func TestSkippedCylindersChangeNothing(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -vld.seed)", seed)
	rng := rand.New(rand.NewSource(seed))
	m := testModel(t, "st19101")
	l, err := disk.NewLayout(m, 4096, 40000)
	if err != nil {
		t.Fatal(err)
	}
	nt := l.NumTracks()
	compared := 0
	for _, util := range []float64{0.3, 0.8, 0.95} {
		a := newAllocator(l, 0.75)
		for b := int64(0); b < l.NumBlocks(); b++ {
			if rng.Float64() < util {
				a.markUsed(b)
			}
		}
		for tr := 0; tr < nt; tr += 1 + rng.Intn(40) { // some empty tracks
			for b := l.TrackStart(tr); b < l.TrackStart(tr)+int64(l.TrackBlocks(tr)); b++ {
				a.markFree(b)
			}
		}
		for i := 0; i < 300; i++ {
			w := window{}
			if rng.Intn(3) > 0 {
				w = window{start: rng.Intn(nt), n: 1 + rng.Intn(nt/4)}
				if rng.Intn(2) == 0 {
					w.extra = make([]bool, nt)
					var ex []uint32
					for k := rng.Intn(6); k > 0; k-- {
						tr := rng.Intn(nt)
						w.extra[tr] = true
						ex = append(ex, uint32(tr))
					}
					w.extraCyls = extraCylinders(ex, m.Surfaces)
				}
			}
			if rng.Intn(3) == 0 {
				a.active = rng.Intn(nt)
			}
			h := disk.Head{Cyl: rng.Intn(l.NumCylinders()), Surf: rng.Intn(m.Surfaces)}
			start := rng.Float64() * 1000
			n := 1 + rng.Intn(3)
			fill := rng.Intn(2) == 0
			got, want := a.search(h, start, n, w, fill), fullSweep(a, h, start, n, w, fill)
			if got != want {
				t.Fatalf("util %.2f n %d fill %v window %d+%d extra cylinders %v head %+v: skipping chose %+v, the full sweep %+v",
					util, n, fill, w.start, w.n, w.extraCyls, h, got, want)
			}
			if got.block >= 0 {
				compared++
				for j := 0; j < n; j++ {
					a.markUsed(got.block + int64(j))
				}
			}
		}
		if err := a.check(); err != nil {
			t.Fatal(err)
		}
	}
	if compared < 300 {
		t.Fatalf("only %d searches found a place", compared)
	}
}
