package fuzz

import (
	"encoding/binary"
	"testing"
)

// FuzzBitmapDesc runs fuzzBitmapDesc (fuzz.go): any bitmap descriptor
// validates without panicking, and every run it yields is inside its range
// and made of free blocks. Its go-fuzz adapter FuzzGoBitmapDesc shares the
// target.
func FuzzBitmapDesc(f *testing.F) {
	f.Add(int64(0), int64(64), []byte{0xff, 0, 0, 0, 0, 0, 0, 0x80})
	f.Add(int64(5), int64(200), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, begin, end int64, raw []byte) {
		if _, err := fuzzBitmapDesc(begin, end, raw); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzBitmapDescBytes: go-fuzz's byte entry reads begin and end from
// the first 16 bytes and the bitmap from the rest; a shorter input scores 0.
func TestFuzzBitmapDescBytes(t *testing.T) {
	enc := func(begin, end int64, raw []byte) []byte {
		d := binary.LittleEndian.AppendUint64(nil, uint64(begin))
		d = binary.LittleEndian.AppendUint64(d, uint64(end))
		return append(d, raw...)
	}
	cases := []struct {
		begin, end int64
		raw        []byte
		score      int
	}{
		{0, 64, []byte{0xff, 0, 0, 0, 0, 0, 0, 0x80}, 1},
		{5, 200, []byte{1, 2, 3}, 0},                  // bitmap too short
		{64, 0, []byte{0xff, 0, 0, 0, 0, 0, 0, 0}, 0}, // inverted
		{3, 10, []byte{0, 0, 0, 0, 0, 0, 0, 0}, 0},    // no free block
		{3, 10, []byte{0x10, 0, 0, 0, 0, 0, 0, 0}, 1}, // block 7
	}
	for _, c := range cases {
		n, err := fuzzBitmapDescBytes(enc(c.begin, c.end, c.raw))
		if n != c.score || err != nil {
			t.Errorf("[%d, %d) %x: bytes entry = %d, %v; want %d, nil", c.begin, c.end, c.raw, n, err, c.score)
		}
	}
	for k := range 16 {
		if n, err := fuzzBitmapDescBytes(enc(0, 64, nil)[:k]); n != 0 || err != nil {
			t.Errorf("%d bytes: %d, %v; want 0, nil", k, n, err)
		}
	}
}
