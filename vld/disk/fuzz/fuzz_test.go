package fuzz

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// layout is preset name's layout with blocks of bs bytes.
func layout(t *testing.T, name string, bs int) *disk.Layout {
	t.Helper()
	m, err := disk.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	l, err := disk.NewLayout(m, bs, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// FuzzParse runs fuzzParse (fuzz.go), the target its go-fuzz adapter
// FuzzGoParse runs too.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"hp97560.json", "hpc2247a.json", "invalid-zone-gap.json", "small-example.json"} {
		b, err := os.ReadFile(filepath.Join("../../../testdata/disks", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"name":"x","cylinders":1,"surfaces":1,"zones":[{"first_cyl":0,"last_cyl":0,"sectors_per_track":1}],"rpm":1,"seek":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := fuzzParse(data); err != nil {
			t.Fatal(err)
		}
	})
}

// checkConsistency fails t if a request breaks serviceConsistency
// (fuzz.go), the property shared by the random test and the fuzz target.
func checkConsistency(t *testing.T, l *disk.Layout, h disk.Head, now float64, b int64, n int, write bool) {
	t.Helper()
	if err := serviceConsistency(l, h, now, b, n, write); err != nil {
		t.Fatal(err)
	}
}

// randomRequest picks a head, time and single-track request.
func randomRequest(rng *rand.Rand, l *disk.Layout) (disk.Head, float64, int64, int, bool) {
	c, s := l.CylSurf(rng.Intn(l.NumTracks()))
	b := rng.Int63n(l.NumBlocks())
	tr := l.TrackOf(b)
	room := l.TrackStart(tr) + int64(l.TrackBlocks(tr)) - b
	return disk.Head{Cyl: c, Surf: s}, rng.Float64() * 1e6, b, 1 + rng.Intn(int(room)), rng.Intn(2) == 0
}

func TestServicePositionConsistency(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, name := range disk.PresetNames() {
		for _, bs := range []int{512, 4096} {
			l := layout(t, name, bs)
			for range 3000 {
				h, now, b, n, w := randomRequest(rng, l)
				checkConsistency(t, l, h, now, b, n, w)
			}
		}
	}
}

// FuzzServicePosition runs fuzzServicePosition (fuzz.go), the target its
// go-fuzz adapter FuzzGoServicePosition shares.
func FuzzServicePosition(f *testing.F) {
	f.Add(uint8(0), 10, 3, 1234.5, int64(999), uint16(3), true)
	f.Add(uint8(2), 2000, 12, 0.0, int64(0), uint16(1), false)
	if _, err := fuzzServiceLayouts(); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint8, cyl, surf int, now float64, b int64, n uint16, write bool) {
		if _, err := fuzzServicePosition(which, cyl, surf, now, b, n, write); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzServicePositionBytes: go-fuzz's byte entry decodes its fields
// where fuzzServicePositionBytes says, and too short an input scores 0.
func TestFuzzServicePositionBytes(t *testing.T) {
	enc := func(which uint8, cyl, surf int, now float64, b int64, n uint16, write bool) []byte {
		le := binary.LittleEndian
		d := []byte{which}
		d = le.AppendUint64(d, uint64(int64(cyl)))
		d = le.AppendUint64(d, uint64(int64(surf)))
		d = le.AppendUint64(d, math.Float64bits(now))
		d = le.AppendUint64(d, uint64(b))
		d = le.AppendUint16(d, n)
		if write {
			return append(d, 1)
		}
		return append(d, 0)
	}
	cases := []struct {
		which     uint8
		cyl, surf int
		now       float64
		b         int64
		n         uint16
		write     bool
		score     int
	}{
		{0, 10, 3, 1234.5, 999, 3, true, 1},
		{2, 2000, 12, 0, 0, 1, false, 1},
		{7, -5, -70, -3e8, -12345, 65535, true, 1},
		{1, 1, 1, math.NaN(), 1, 1, false, 0},
		{1, 1, 1, 2e9, 1, 1, false, 0},
	}
	for _, c := range cases {
		data := enc(c.which, c.cyl, c.surf, c.now, c.b, c.n, c.write)
		if len(data) != servicePositionInputLen {
			t.Fatalf("encoded %d bytes, want %d", len(data), servicePositionInputLen)
		}
		n, err := fuzzServicePositionBytes(data)
		if n != c.score || err != nil {
			t.Errorf("%+v: bytes entry = %d, %v; want %d, nil", c, n, err, c.score)
		}
		if tn, terr := fuzzServicePosition(c.which, c.cyl, c.surf, c.now, c.b, c.n, c.write); tn != n || terr != nil {
			t.Errorf("%+v: typed target = %d, %v; bytes entry %d", c, tn, terr, n)
		}
		if n, err := fuzzServicePositionBytes(data[:len(data)-1]); n != 0 || err != nil {
			t.Errorf("%+v: one byte short = %d, %v; want 0, nil", c, n, err)
		}
	}
}
