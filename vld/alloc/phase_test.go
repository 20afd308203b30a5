package alloc

import (
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestPhaseIndexSameChoices: with the phase index a search for one or two
// blocks makes exactly the choice of the full scan (block and cost), on every preset
// and at every fullness, while blocks are taken and freed (freeing sets
// bits, searches clean them); the index stays a superset (check).
func TestPhaseIndexSameChoices(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (replay with -alloc.seed)", seed)
	for _, name := range disk.PresetNames() {
		t.Run(name, func(t *testing.T) {
			m := testModel(t, name)
			l, err := disk.NewLayout(m, 4096, 20000)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(seed))
			for _, util := range []float64{0.3, 0.8, 0.95, 0.99} {
				a := New(l, -1)
				if a.phase == nil {
					t.Skipf("%d surfaces: no phase index", m.Surfaces)
				}
				for b := int64(0); b < l.NumBlocks(); b++ {
					if rng.Float64() < util {
						a.MarkUsed(b)
					}
				}
				for i := 0; i < 300; i++ {
					h := disk.Head{Cyl: rng.Intn(l.NumCylinders()), Surf: rng.Intn(m.Surfaces)}
					start := rng.Float64() * 1000
					n := 1 + rng.Intn(phaseRuns)
					a.avoidEmpty = rng.Intn(4) == 0
					got := a.Choose(h, start, n, Window{})
					idx := a.phase
					a.phase = nil
					want := a.Choose(h, start, n, Window{})
					a.phase = idx
					if got != want {
						t.Fatalf("util %.2f n %d avoidEmpty %v head %+v t=%.3f: with the index %+v, full scan %+v", util, n, a.avoidEmpty, h, start, got, want)
					}
					a.avoidEmpty = false
					// The compactor's hole choice goes through the index too.
					f := HoleFilter{Avoid: rng.Intn(l.NumTracks()), MaxFree: int32(rng.Intn(8))}
					hole := a.ChooseHole(h, start, f)
					a.phase = nil
					wantHole := a.ChooseHole(h, start, f)
					a.phase = idx
					if hole != wantHole {
						t.Fatalf("util %.2f hole filter %+v head %+v t=%.3f: with the index %+v, full scan %+v", util, f, h, start, hole, wantHole)
					}
					for j := 0; got.Block >= 0 && j < n; j++ {
						a.MarkUsed(got.Block + int64(j))
					}
					for j := 0; j < 2; j++ { // churn: frees set bits
						a.MarkFree(rng.Int63n(l.NumBlocks()))
					}
				}
				if err := a.Check(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
