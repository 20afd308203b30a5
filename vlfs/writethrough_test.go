package vlfs

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestWriteThrough: with Options.WriteThroughBytes, the whole blocks of a
// large write go to the volume at once and the partial blocks at its ends
// are buffered; smaller writes, and writes over buffered blocks, are
// buffered as before. The contents read back the same before and after a
// commit and a remount, overwritten blocks are freed, and Check passes.
func TestWriteThrough(t *testing.T) {
	im := mountImage(t, newFormatted(t, 16<<20), Options{Logf: t.Logf, WriteThroughBytes: 64 << 10})
	rng := rand.New(rand.NewSource(1))
	f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	want := []byte{}
	write := func(off int, n int) {
		t.Helper()
		data := make([]byte, n)
		rng.Read(data)
		must(im.fs.Write(f.Ino, int64(off), data)).ok(t)
		if end := off + n; end > len(want) {
			want = append(want, make([]byte, end-len(want))...)
		}
		copy(want[off:], data)
	}
	through := func() int64 { return im.fs.Stats().WriteThroughBlocks }
	for _, tc := range []struct {
		name        string
		off, n      int
		wantThrough int64 // blocks written through by this write
	}{
		{"200 KiB at an odd offset: 49 whole blocks through, both ends buffered", 1000, 200 << 10, 49},
		{"32 KiB: below the threshold, buffered", 400 << 10, 32 << 10, 0},
		{"over the buffered block at the first write's end", 150 << 10, 128 << 10, 0},
		{"overwrite of blocks written through", 4096, 96 << 10, 24},
	} {
		before := through()
		write(tc.off, tc.n)
		if got := through() - before; got != tc.wantThrough {
			t.Errorf("%s: %d blocks written through, want %d", tc.name, got, tc.wantThrough)
		}
	}
	check := func(when string) {
		t.Helper()
		got := make([]byte, len(want)+100)
		n := must(im.fs.Read(f.Ino, 0, got)).ok(t)
		if n != len(want) || !bytes.Equal(got[:n], want) {
			t.Fatalf("%s: read %d bytes, want %d; contents differ: %v", when, n, len(want), !bytes.Equal(got[:min(n, len(want))], want[:min(n, len(want))]))
		}
	}
	check("before the commit")
	must(0, im.fs.Fsync(f.Ino, false)).ok(t)
	check("after the commit")
	im.check()
	im.remount()
	check("after a remount")
	im.check()
}
