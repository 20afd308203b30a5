package alloc

import (
	"math"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestFillThresholdThenGreedy checks the fill policy of section 4.2 of the
// virtual-log paper end to end on the allocator: while empty tracks exist,
// every write goes to an empty track or to the track being filled, and no
// track is filled beyond 75 % (the holes of tracks that already held data
// are left alone); once the empty tracks are gone, every write goes to the
// free block the head reaches soonest anywhere (greedy, checked against the
// brute-force oracle), so tracks then fill beyond the threshold.
func TestFillThresholdThenGreedy(t *testing.T) {
	m := testModel(t, "st19101")
	l, err := disk.NewLayout(m, 4096, 32*16*8) // 8 cylinders, 128 tracks of 32 blocks
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(11))
	a := New(l, 0.75)
	// A third of the tracks already hold data, half full, at random.
	prefilled := map[int]bool{}
	for tr := 0; tr < l.NumTracks(); tr += 3 {
		prefilled[tr] = true
		for b := l.TrackStart(tr); b < l.TrackStart(tr)+int64(l.TrackBlocks(tr)); b++ {
			if rng.Intn(2) == 0 {
				a.MarkUsed(b)
			}
		}
	}
	perTrack := map[int]int{}
	h, now := disk.Head{}, 0.0
	fillWrites, greedyWrites := 0, 0
	for a.free > 0 {
		emptyBefore, active := a.empty, a.active
		var activeUsed int32
		if active >= 0 {
			activeUsed = a.trackCap[active] - a.trackFree[active]
		}
		c := a.Choose(h, now, 1, Window{})
		if c.Block < 0 {
			t.Fatalf("no block with %d free", a.free)
		}
		tr := l.TrackOf(c.Block)
		if emptyBefore > 0 {
			fillWrites++
			wasEmpty := a.trackFree[tr] == a.trackCap[tr]
			if !wasEmpty && (tr != active || float64(activeUsed) >= 0.75*float64(a.trackCap[tr])) {
				t.Fatalf("write %d with %d empty tracks went to track %d (free %d, active %d)", fillWrites, emptyBefore, tr, a.trackFree[tr], active)
			}
			if prefilled[tr] {
				t.Fatalf("threshold mode wrote into a hole of pre-filled track %d", tr)
			}
		} else {
			if greedyWrites == 0 {
				checkFilledToThreshold(t, a, prefilled)
			}
			greedyWrites++
			if ob, oc := bruteBest(a, h, now); ob >= 0 && math.Abs(l.PositionMs(h, now, c.Block, true)-oc) > 1e-9 {
				t.Fatalf("greedy write chose %d (%.4f ms), oracle %d (%.4f ms)", c.Block, c.Cost, ob, oc)
			}
		}
		a.MarkUsed(c.Block)
		a.NoteWrite(tr)
		perTrack[tr]++
		cyl, s := l.CylSurf(tr)
		h = disk.Head{Cyl: cyl, Surf: s}
		now += c.Cost + l.BlockMs(tr) + rng.Float64()*3
	}
	if fillWrites == 0 || greedyWrites == 0 {
		t.Fatalf("both phases must run: %d threshold writes, %d greedy", fillWrites, greedyWrites)
	}
	if a.free != 0 || a.empty != 0 {
		t.Fatalf("disk not full at the end: %d free, %d empty tracks", a.free, a.empty)
	}
	t.Logf("%d writes in threshold mode, %d greedy", fillWrites, greedyWrites)
}

// checkFilledToThreshold runs when the empty tracks have just run out:
// every track that started empty holds exactly 24 blocks (75 % of 32),
// except the last one taken, which got its first block.
func checkFilledToThreshold(t *testing.T, a *Allocator, prefilled map[int]bool) {
	t.Helper()
	short := 0
	for tr := range a.trackCap {
		if prefilled[tr] {
			continue
		}
		switch used := a.trackCap[tr] - a.trackFree[tr]; {
		case used == 24:
		case used < 24:
			short++
		default:
			t.Fatalf("track %d holds %d blocks after the threshold phase, above 75%%", tr, used)
		}
	}
	if short > 1 {
		t.Fatalf("%d tracks below the threshold when the empty tracks ran out, want at most 1", short)
	}
}

// bruteHole is the oracle for chooseHole: the cheapest free block, by the
// model's PositionMs, on a track the filter allows, over the cylinders the
// sweep may use (the head's and those after it).
func bruteHole(a *Allocator, h disk.Head, start float64, f HoleFilter) (int64, float64) {
	best, bestCost := int64(-1), math.Inf(1)
	l := a.l
	for b := int64(0); b < l.NumBlocks(); b++ {
		tr := l.TrackOf(b)
		if a.IsUsed(b) || !a.holeOK(tr, f) {
			continue
		}
		if c, _ := l.CylSurf(tr); c < h.Cyl {
			continue
		}
		if cost := l.PositionMs(h, start, b, true); cost < bestCost {
			best, bestCost = b, cost
		}
	}
	return best, bestCost
}

func TestHoleChoiceMatchesOracle(t *testing.T) {
	for _, name := range []string{"st19101", "hp97560"} {
		t.Run(name, func(t *testing.T) {
			m := testModel(t, name)
			l, err := disk.NewLayout(m, 4096, 8000)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewSource(5))
			a := New(l, 0.75)
			for tr := 0; tr < l.NumTracks(); tr++ {
				if rng.Intn(4) == 0 {
					continue // stays empty: never a hole
				}
				u := rng.Float64()
				for b := l.TrackStart(tr); b < l.TrackStart(tr)+int64(l.TrackBlocks(tr)); b++ {
					if rng.Float64() < u {
						a.MarkUsed(b)
					}
				}
			}
			for i := 0; i < 300; i++ {
				h := disk.Head{Cyl: rng.Intn(l.NumCylinders()), Surf: rng.Intn(m.Surfaces)}
				start := rng.Float64() * 1000
				f := HoleFilter{Avoid: rng.Intn(l.NumTracks()), MaxFree: int32(rng.Intn(8))}
				c := a.ChooseHole(h, start, f)
				ob, oc := bruteHole(a, h, start, f)
				if ob < 0 {
					continue // nothing ahead: the wrap is the sweep's, tested for search
				}
				if c.Block < 0 || !a.holeOK(l.TrackOf(c.Block), f) || a.IsUsed(c.Block) {
					t.Fatalf("chose %d, not an allowed hole (oracle %d)", c.Block, ob)
				}
				if got := l.PositionMs(h, start, c.Block, true); math.Abs(got-oc) > 1e-9 || math.Abs(got-c.Cost) > 1e-6 {
					t.Fatalf("chose %d at %.4f ms (estimated %.4f), oracle %d at %.4f ms", c.Block, got, c.Cost, ob, oc)
				}
			}
		})
	}
}
