package disk

import "testing"

// Track's geometry must agree with the per-block functions it stands in for,
// bit for bit: the allocator's choices are checked against an oracle that
// uses BlockPhase.
func TestTrackMatchesPerBlock(t *testing.T) {
	for _, name := range PresetNames() {
		m, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		l, err := NewLayout(m, 4096, 0)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, l.NumTracks()/997)
		for tr := 0; tr < l.NumTracks(); tr += step {
			g := l.Track(tr)
			if g.Start != l.TrackStart(tr) || g.Blocks != l.TrackBlocks(tr) || g.BlockMs != l.BlockMs(tr) {
				t.Fatalf("%s track %d: %+v, want start %d blocks %d block ms %v", name, tr, g, l.TrackStart(tr), l.TrackBlocks(tr), l.BlockMs(tr))
			}
			if surf := tr % m.Surfaces; surf > 0 {
				// Surface derives the same geometry from surface 0.
				s := l.Track(tr - surf).Surface(surf)
				if s.Start != g.Start || s.Phase(0) != g.Phase(0) || s.Phase(1) != g.Phase(1) {
					t.Fatalf("%s track %d: Surface(%d) of surface 0 gives %+v, Track gives %+v", name, tr, surf, s, g)
				}
			}
			for i := int64(0); i < int64(g.Blocks); i++ {
				if got, want := g.Phase(i), l.BlockPhase(g.Start+i); got != want {
					t.Fatalf("%s track %d block %d: phase %v, BlockPhase %v", name, tr, i, got, want)
				}
			}
		}
	}
}
