package diskfs

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
)

var seedFlag = flag.Int64("diskfs.seed", 0, "replay TestLogicalBytesModel with this seed")

// TestLogicalBytesModel drives byte-range reads, writes, discards, syncs
// and reopens at random offsets and lengths against a plain byte slice.
func TestLogicalBytesModel(t *testing.T) {
	for _, p := range []vld.Placement{vld.PlaceEager, vld.PlaceInPlace} {
		t.Run(p.String(), func(t *testing.T) {
			seed := testseed.Pick(t, *seedFlag, "diskfs.seed")
			rng := rand.New(rand.NewSource(seed))
			l, dev := newMemLogical(t, 8<<20, p)
			ref := make([]byte, l.Size())
			span := int64(64 << 10) // keep the action in a small window: more overlap
			for step := 0; step < 400; step++ {
				off := rng.Int63n(span)
				n := 1 + rng.Int63n(3*4096)
				switch r := rng.Intn(10); {
				case r < 5:
					data := make([]byte, n)
					rng.Read(data)
					if _, err := l.WriteAt(data, off); err != nil {
						t.Fatalf("step %d: write: %v", step, err)
					}
					copy(ref[off:], data)
				case r < 7:
					if err := l.Discard(off, n); err != nil {
						t.Fatalf("step %d: discard: %v", step, err)
					}
					clear(ref[off : off+n])
				case r < 9:
					if err := l.Sync(); err != nil {
						t.Fatal(err)
					}
				default:
					if err := l.Close(); err != nil {
						t.Fatal(err)
					}
					l = openMemLogical(t, dev)
				}
				got := make([]byte, n)
				if _, err := l.ReadAt(got, off); err != nil {
					t.Fatalf("step %d: read: %v", step, err)
				}
				if !bytes.Equal(got, ref[off:off+n]) {
					t.Fatalf("step %d: [%d, +%d) differs from the model", step, off, n)
				}
			}
			got := make([]byte, span+4096)
			if _, err := l.ReadAt(got, 0); err != nil || !bytes.Equal(got, ref[:len(got)]) {
				t.Fatalf("final read: %v, equal %v", err, bytes.Equal(got, ref[:len(got)]))
			}
		})
	}
}

// TestLogicalBounds: a write that does not fit fails with ErrOutOfRange and
// changes nothing; reads stop at the end with io.EOF.
func TestLogicalBounds(t *testing.T) {
	l, _ := newMemLogical(t, 8<<20, vld.PlaceEager)
	size := l.Size()
	last := bytes.Repeat([]byte{0xaa}, 100)
	if _, err := l.WriteAt(last, size-100); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		off  int64
		n    int
	}{
		{"at end", size, 1},
		{"across end", size - 50, 100},
		{"far beyond", size * 2, 4096},
		{"negative", -1, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := l.WriteAt(bytes.Repeat([]byte{0x55}, c.n), c.off)
			if !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("WriteAt(%d bytes at %d) = %v, want ErrOutOfRange", c.n, c.off, err)
			}
			got := make([]byte, 100)
			if _, err := l.ReadAt(got, size-100); err != nil || !bytes.Equal(got, last) {
				t.Fatalf("the last 100 bytes changed (err %v)", err)
			}
		})
	}
	buf := make([]byte, 200)
	if n, err := l.ReadAt(buf, size-100); n != 100 || err != io.EOF {
		t.Fatalf("read across the end = %d, %v; want 100, EOF", n, err)
	}
}

// TestLogicalFreedCounts: whole blocks discarded with eager placement are
// freed by trim, rewritten ones by overwrite; in place, nothing is freed.
func TestLogicalFreedCounts(t *testing.T) {
	cases := []struct {
		p                      vld.Placement
		wantTrimmed, wantOverw int64
	}{
		{vld.PlaceEager, 3, 4},
		{vld.PlaceInPlace, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.p.String(), func(t *testing.T) {
			l, _ := newMemLogical(t, 8<<20, c.p)
			data := bytes.Repeat([]byte{1}, 8*4096)
			if _, err := l.WriteAt(data, 0); err != nil { // blocks 0-7
				t.Fatal(err)
			}
			if _, err := l.WriteAt(data[:4*4096], 4*4096); err != nil { // 4-7 again
				t.Fatal(err)
			}
			// Blocks 1, 2, 3 whole; partial edges of 0 and 4 are zero-filled.
			if err := l.Discard(100, 4*4096); err != nil {
				t.Fatal(err)
			}
			st := l.Stats()
			if st.FreedByTrimBlocks != c.wantTrimmed || st.FreedByOverwriteBlocks < c.wantOverw {
				t.Fatalf("freed by trim %d (want %d), by overwrite %d (want >= %d)",
					st.FreedByTrimBlocks, c.wantTrimmed, st.FreedByOverwriteBlocks, c.wantOverw)
			}
			got := make([]byte, 4*4096)
			if _, err := l.ReadAt(got, 100); err != nil || !bytes.Equal(got, make([]byte, len(got))) {
				t.Fatalf("discarded range does not read as zeros (err %v)", err)
			}
			one := make([]byte, 1)
			if _, err := l.ReadAt(one, 99); err != nil || one[0] != 1 {
				t.Fatalf("byte before the range = %v (%v), want 1", one[0], err)
			}
		})
	}
}
