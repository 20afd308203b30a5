package alloc

import (
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// fullSweep is search without skipping: every cylinder ahead priced, then
// every one from the first (the reference for nextCandidate).
func fullSweep(a *Allocator, h disk.Head, start float64, n int, w Window, fill bool) Choice {
	best := NoChoice
	ncyl := a.l.NumCylinders()
	for c := h.Cyl; c < ncyl; c++ {
		if c > h.Cyl && a.seekBound(c-h.Cyl) >= best.Cost {
			return best
		}
		best = a.bestInCylinder(c, h, start, n, w, fill, best)
	}
	for c := 0; c < h.Cyl && best.Block < 0; c++ {
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
	t.Logf("seed %d (replay with -alloc.seed)", seed)
	rng := rand.New(rand.NewSource(seed))
	m := testModel(t, "st19101")
	l, err := disk.NewLayout(m, 4096, 40000)
	if err != nil {
		t.Fatal(err)
	}
	nt := l.NumTracks()
	compared := 0
	for _, util := range []float64{0.3, 0.8, 0.95} {
		a := New(l, 0.75)
		for b := int64(0); b < l.NumBlocks(); b++ {
			if rng.Float64() < util {
				a.MarkUsed(b)
			}
		}
		for tr := 0; tr < nt; tr += 1 + rng.Intn(40) { // some empty tracks
			for b := l.TrackStart(tr); b < l.TrackStart(tr)+int64(l.TrackBlocks(tr)); b++ {
				a.MarkFree(b)
			}
		}
		for i := 0; i < 300; i++ {
			w := Window{}
			if rng.Intn(3) > 0 {
				w = Window{Start: rng.Intn(nt), N: 1 + rng.Intn(nt/4)}
				if rng.Intn(2) == 0 {
					w.Extra = make([]bool, nt)
					var ex []uint32
					for k := rng.Intn(6); k > 0; k-- {
						tr := rng.Intn(nt)
						w.Extra[tr] = true
						ex = append(ex, uint32(tr))
					}
					w.ExtraCyls = ExtraCylinders(ex, m.Surfaces)
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
					util, n, fill, w.Start, w.N, w.ExtraCyls, h, got, want)
			}
			if got.Block >= 0 {
				compared++
				for j := 0; j < n; j++ {
					a.MarkUsed(got.Block + int64(j))
				}
			}
		}
		if err := a.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if compared < 300 {
		t.Fatalf("only %d searches found a place", compared)
	}
}
