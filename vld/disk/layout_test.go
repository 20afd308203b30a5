package disk

import (
	"errors"
	"math"
	"math/rand"
	"testing"
)

func mustLayout(t testing.TB, m *Model, bs int, max int64) *Layout {
	t.Helper()
	l, err := NewLayout(m, bs, max)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLayoutSizes(t *testing.T) {
	cases := []struct {
		disk       string
		bs         int
		max        int64
		blocks     int64
		tracks     int
		cylinders  int
		lastBlocks int // blocks on the last track
	}{
		{"hp97560", 512, 0, 1962 * 19 * 72, 1962 * 19, 1962, 72},
		{"hp97560", 4096, 0, 1962 * 19 * 9, 1962 * 19, 1962, 9},
		{"hp97560", 5120, 0, 1962 * 19 * 7, 1962 * 19, 1962, 7},         // 2 sectors per track unused
		{"hp97560", 4096, 1000, 1000, 112, 6, 1},                        // 111 full tracks + 1 block
		{"st19101", 4096, 1<<18 + 5, 1<<18 + 5, 1<<13 + 1, 1<<9 + 1, 5}, // 32 blocks per track
		{"hpc2247a", 4096, 0, 13 * (559*12 + 202*11 + 141*11 + 150*10 + 142*10 + 326*9 + 274*8 + 257*7), 2051 * 13, 2051, 7},
		{"carson-setia", 8192, 0, 815 * 16 * 4, 815 * 16, 815, 4},
	}
	for _, c := range cases {
		l := mustLayout(t, mustPreset(t, c.disk), c.bs, c.max)
		if l.NumBlocks() != c.blocks || l.NumTracks() != c.tracks || l.NumCylinders() != c.cylinders {
			t.Errorf("%s/%d/%d: blocks %d tracks %d cyls %d; want %d %d %d", c.disk, c.bs, c.max,
				l.NumBlocks(), l.NumTracks(), l.NumCylinders(), c.blocks, c.tracks, c.cylinders)
		}
		if got := l.TrackBlocks(l.NumTracks() - 1); got != c.lastBlocks {
			t.Errorf("%s/%d/%d: last track holds %d blocks, want %d", c.disk, c.bs, c.max, got, c.lastBlocks)
		}
		if l.TrackBlocks(l.NumTracks()) != 0 || l.TrackBlocks(-1) != 0 {
			t.Errorf("%s: tracks outside the layout must hold 0 blocks", c.disk)
		}
	}
}

func TestLayoutErrors(t *testing.T) {
	hp := mustPreset(t, "hp97560")
	hpc := mustPreset(t, "hpc2247a")
	cases := []struct {
		name string
		m    *Model
		bs   int
		max  int64
	}{
		{"zero block size", hp, 0, 0},
		{"not a sector multiple", hp, 1000, 0},
		{"block larger than a track", hp, 73 * 512, 0},
		{"block larger than the inner zone's track", hpc, 57 * 512, 0},
		{"less than one track", hp, 512, 71},
	}
	for _, c := range cases {
		if _, err := NewLayout(c.m, c.bs, c.max); !errors.Is(err, ErrBadLayout) {
			t.Errorf("%s: got %v, want ErrBadLayout", c.name, err)
		}
	}
	bad := mustPreset(t, "hp97560")
	bad.RPM = 0
	if _, err := NewLayout(bad, 512, 0); !errors.Is(err, ErrInvalidModel) {
		t.Errorf("invalid model: got %v", err)
	}
}

// TestLayoutMapping walks every block of multi-zone layouts and checks
// that block -> track -> block and track -> cylinder/surface agree.
func TestLayoutMapping(t *testing.T) {
	small, err := Load("../../testdata/disks/small-example.json")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		m   *Model
		bs  int
		max int64
	}{
		{small, 512, 0}, {small, 3 * 512, 0}, {small, 512, 500},
		{mustPreset(t, "hpc2247a"), 4096, 0}, {mustPreset(t, "hpc2247a"), 4096, 600000},
	}
	for _, c := range cases {
		l := mustLayout(t, c.m, c.bs, c.max)
		var b int64
		for tr := 0; tr < l.NumTracks(); tr++ {
			if l.TrackStart(tr) != b {
				t.Fatalf("%s/%d: TrackStart(%d) = %d, want %d", c.m.Name, c.bs, tr, l.TrackStart(tr), b)
			}
			cyl, surf := l.CylSurf(tr)
			if l.TrackOfCylSurf(cyl, surf) != tr || surf >= c.m.Surfaces {
				t.Fatalf("track %d -> (%d,%d) does not map back", tr, cyl, surf)
			}
			zone := c.m.Zones[c.m.ZoneOf(cyl)]
			if full := zone.SectorsPerTrack * SectorSize / c.bs; l.TrackBlocks(tr) != full && tr != l.NumTracks()-1 {
				t.Fatalf("track %d holds %d blocks, zone says %d", tr, l.TrackBlocks(tr), full)
			}
			for i := 0; i < l.TrackBlocks(tr); i++ {
				if l.TrackOf(b) != tr {
					t.Fatalf("TrackOf(%d) = %d, want %d", b, l.TrackOf(b), tr)
				}
				b++
			}
		}
		if b != l.NumBlocks() {
			t.Errorf("%s/%d: tracks hold %d blocks, NumBlocks %d", c.m.Name, c.bs, b, l.NumBlocks())
		}
	}
}

// TestBlockPhase pins skew arithmetic on the HP 97560 (72 sectors, track
// skew 8, cylinder skew 18).
func TestBlockPhase(t *testing.T) {
	l := mustLayout(t, mustPreset(t, "hp97560"), 512, 0)
	cases := []struct {
		cyl, surf, i int
		sector       int
	}{
		{0, 0, 0, 0},
		{0, 0, 1, 1},
		{0, 1, 0, 8},
		{0, 9, 0, 0}, // 9*8 = 72
		{0, 18, 71, (18*8 + 71) % 72},
		{1, 0, 0, 18*8 + 18 - 144}, // 162 mod 72 = 18
		{2, 3, 5, (2*162 + 3*8 + 5) % 72},
	}
	for _, c := range cases {
		b := l.TrackStart(l.TrackOfCylSurf(c.cyl, c.surf)) + int64(c.i)
		if got, want := l.BlockPhase(b), float64(c.sector)/72; got != want {
			t.Errorf("(%d,%d,%d) phase %v, want %v", c.cyl, c.surf, c.i, got, want)
		}
	}
	if got, want := l.BlockMs(0), 60000.0/4002/72; math.Abs(got-want) > 1e-12 {
		t.Errorf("BlockMs = %v, want %v", got, want)
	}
	rng := rand.New(rand.NewSource(1))
	for range 1000 {
		if p := l.BlockPhase(rng.Int63n(l.NumBlocks())); p < 0 || p >= 1 {
			t.Fatalf("phase %v out of [0,1)", p)
		}
	}
}

// TestLayoutContains: a run fits only inside the layout, and a huge count
// never wraps around into a fit.
func TestLayoutContains(t *testing.T) {
	l := mustLayout(t, mustPreset(t, "hp97560"), 4096, 1000)
	cases := []struct {
		b    int64
		n    int
		want bool
	}{
		{0, 0, true},
		{0, 1000, true},
		{999, 1, true},
		{1000, 0, true},
		{1000, 1, false},
		{0, 1001, false},
		{-1, 1, false},
		{5, -1, false},
		{10, math.MaxInt, false},
		{math.MaxInt64 - 2, 10, false},
	}
	for _, c := range cases {
		if got := l.Contains(c.b, c.n); got != c.want {
			t.Errorf("Contains(%d, %d) = %v, want %v", c.b, c.n, got, c.want)
		}
	}
}
