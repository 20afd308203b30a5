package disk

import (
	"math"
	"math/rand"
	"testing"
)

// TestServiceCrossing pins a two-track sequential write on the ST19101:
// the track skew (22 sectors = 0.515625 ms) covers the 0.5 ms head switch,
// leaving 0.015625 ms of rotation; the cylinder skew (36 sectors =
// 0.84375 ms) covers the 0.831 ms one-cylinder seek.
func TestServiceCrossing(t *testing.T) {
	l := mustLayout(t, mustPreset(t, "st19101"), 512, 0)
	sector := 6.0 / 256
	cases := []struct {
		name        string
		surf        int
		seek, sw, r float64
		end         Head
	}{
		{"head switch", 0, 0, 0.5, 22*sector - 0.5, Head{0, 1}},
		{"cylinder crossing", 15, 0.831, 0, 36*sector - 0.831, Head{1, 0}},
	}
	for _, c := range cases {
		b := l.TrackStart(l.TrackOfCylSurf(0, c.surf))
		now := l.BlockPhase(b)*6 - 0.1 + 6*1000 // head reaches sector 0 right after the overhead
		a, h := l.Service(Head{0, c.surf}, now, b, 2*256, true)
		if !near(a.OverheadMs, 0.1) || !near(a.SeekMs, c.seek) || !near(a.HeadSwitchMs, c.sw) ||
			!near(a.RotationMs, c.r) || !near(a.TransferMs, 12) || h != c.end {
			t.Errorf("%s: %+v head %v; want seek %v switch %v rot %v xfer 12 head %v", c.name, a, h, c.seek, c.sw, c.r, c.end)
		}
	}
}

// TestServiceMoves checks overlap of seek and switch, and write settle.
func TestServiceMoves(t *testing.T) {
	l := mustLayout(t, mustPreset(t, "hpc2247a"), 512, 0)
	cases := []struct {
		name     string
		h        Head
		cyl, srf int
		write    bool
		seek, sw float64
	}{
		{"switch, read", Head{0, 0}, 0, 1, false, 0, 0.89},
		{"switch, write settles", Head{0, 0}, 0, 1, true, 0, 0.89 + 0.65},
		{"seek, write", Head{0, 0}, 1, 0, true, 2.89 + 0.65, 0},
		{"seek hides switch", Head{0, 0}, 1, 5, false, 2.89, 0},
		{"long seek, back", Head{900, 2}, 0, 2, false, 7.75 + 0.0059*900, 0},
		{"no move, write", Head{3, 3}, 3, 3, true, 0, 0},
	}
	for _, c := range cases {
		tr := l.TrackOfCylSurf(c.cyl, c.srf)
		a, h := l.Service(c.h, 0, l.TrackStart(tr), 1, c.write)
		if !near(a.SeekMs, c.seek) || !near(a.HeadSwitchMs, c.sw) || h != (Head{c.cyl, c.srf}) {
			t.Errorf("%s: %+v, head %v; want seek %v switch %v", c.name, a, h, c.seek, c.sw)
		}
		if mv := l.MoveMs(c.h, tr, c.write); !near(mv, c.seek+c.sw) {
			t.Errorf("%s: MoveMs = %v", c.name, mv)
		}
	}
	// Small model: a seek (1.5 ms) shorter than the switch (0.7 ms)? No: a
	// switch longer than the seek shows up as the excess.
	small, err := Load("../../testdata/disks/small-example.json")
	if err != nil {
		t.Fatal(err)
	}
	small.HeadSwitchMs = 2.0
	ls := mustLayout(t, small, 512, 0)
	a, _ := ls.Service(Head{0, 0}, 0, ls.TrackStart(ls.TrackOfCylSurf(1, 1)), 1, false)
	if !near(a.SeekMs, 1.5) || !near(a.HeadSwitchMs, 0.5) {
		t.Errorf("switch outlasting seek: %+v; want seek 1.5, switch 0.5", a)
	}
}

// TestServiceEnd: a request running past the layout's end is cut there.
func TestServiceEnd(t *testing.T) {
	l := mustLayout(t, mustPreset(t, "hp97560"), 4096, 100)
	a, h := l.Service(Head{}, 0, 95, 20, false)
	if !near(a.TransferMs, 5*l.BlockMs(0)) || h != (Head{0, 11}) {
		t.Errorf("cut request: %+v head %v; want 5 blocks ending on track 11", a, h)
	}
	a, _ = l.Service(Head{}, 0, 5, 0, false)
	if a.TransferMs != 0 {
		t.Errorf("n=0 transfers %v", a.TransferMs)
	}
}

// TestAlignedStartWaitsZero: a request starting exactly when its block's
// start is under the head does not lose a revolution to rounding, even
// late in a long simulation.
func TestAlignedStartWaitsZero(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, name := range PresetNames() {
		l := mustLayout(t, mustPreset(t, name), 512, 0)
		for range 2000 {
			b := rng.Int63n(l.NumBlocks())
			c, s := l.CylSurf(l.TrackOf(b))
			start := (float64(rng.Intn(1e7)) + l.BlockPhase(b)) * l.RotationMs()
			if w := l.PositionMs(Head{c, s}, start, b, true); w != 0 {
				t.Fatalf("%s: block %d at t=%v waits %v ms", name, b, start, w)
			}
		}
	}
}

// near is equality of times in ms up to 1e-9 (rounding).
func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
