package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestCopyRange copies between files and within one, across chunks, past
// the ends of both, and checks the bytes copied and both files' contents
// against byte slices, before and after a remount (Check runs at the end).
func TestCopyRange(t *testing.T) {
	const big = copyChunk*2 + 12345 // three chunks
	cases := []struct {
		name           string
		same           bool // copy within the source file
		srcOff, dstOff int64
		n              int64
		want           int64
	}{
		{"whole file", false, 0, 0, big, big},
		{"unaligned, into the middle", false, 1000, 5000, 70000, 70000},
		{"past the end of the source", false, big - 100, 0, 4096, 100},
		{"at the end of the source", false, big, 0, 4096, 0},
		{"past the end of the destination", false, 0, 3 << 20, 10000, 10000},
		{"within one file", true, 0, big + 4096, 9000, 9000},
		{"within one file, backwards", true, 50000, 100, 20000, 20000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newFixture(t)
			fs := x.fs
			src := punchData(big, 5)
			must(fs.Write(x.f, 0, src[:big/2])).ok(t)
			must(0, fs.Fsync(x.f, false)).ok(t) // half written out, half buffered
			must(fs.Write(x.f, big/2, src[big/2:])).ok(t)
			dst := x.f
			var model []byte
			if !c.same {
				dst = x.g
				model = punchData(20000, 9)
				must(fs.Write(dst, 0, model)).ok(t)
			} else {
				model = src
			}
			got := must(fs.CopyRange(x.f, c.srcOff, dst, c.dstOff, c.n)).ok(t)
			if got != c.want {
				t.Fatalf("copied %d bytes, want %d", got, c.want)
			}
			if end := c.dstOff + got; end > int64(len(model)) {
				model = append(model, make([]byte, end-int64(len(model)))...)
			}
			copy(model[c.dstOff:], src[c.srcOff:c.srcOff+got])
			x.readIs(t, dst, model)
			x.im.remount()
			x.fs = x.im.fs
			x.readIs(t, dst, model)
			if !c.same {
				x.readIs(t, x.f, src)
			}
		})
	}
}

func TestCopyRangeErrors(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(fs.Write(x.f, 0, bytes.Repeat([]byte("abcd"), 5000))).ok(t)
	for _, c := range []struct {
		name              string
		src               Ino
		srcOff, dstOff, n int64
		dst               Ino
		want              error
	}{
		{"negative offset", x.f, -1, 0, 10, x.g, ErrInvalid},
		{"negative length", x.f, 0, 0, -1, x.g, ErrInvalid},
		{"overlapping in one file", x.f, 0, 100, 1000, x.f, ErrInvalid},
		{"overlapping past the end", x.f, 19000, 19500, 5000, x.f, ErrInvalid},
		{"past the largest file", x.f, 0, 1 << 62, 10, x.g, ErrFileTooBig},
		{"from a directory", x.d, 0, 0, 10, x.g, ErrIsDir},
		{"to a directory", x.f, 0, 0, 10, x.d, ErrIsDir},
	} {
		if _, err := fs.CopyRange(c.src, c.srcOff, c.dst, c.dstOff, c.n); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	x.readIs(t, x.g, nil)
	// Cut at the end of the file first, as Linux does: [19990, 20000) to
	// 20100 does not overlap, though the 1,000 bytes asked for would.
	if got, err := fs.CopyRange(x.f, 19990, x.f, 20100, 1000); err != nil || got != 10 {
		t.Fatalf("copy past the end within one file: %d, %v; want 10 bytes", got, err)
	}
}

// TestCopyRangeKeepsHoles: a sparse source copied at the same place in
// the block stays sparse (the destination's blocks over the holes are
// freed, not written with zeros), and one copied at another place in the
// block is copied as data; both read back alike, before and after a
// remount.
func TestCopyRangeKeepsHoles(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	const bs = 4096
	src := make([]byte, 200*bs+100)
	copy(src[0:], punchData(bs, 1))          // block 0: data
	copy(src[100*bs+7:], punchData(3000, 2)) // block 100: partly data
	copy(src[200*bs:], punchData(100, 3))    // the last, partial block
	must(fs.Write(x.f, 0, src[:bs])).ok(t)
	must(fs.Write(x.f, 100*bs+7, src[100*bs+7:100*bs+3007])).ok(t)
	must(0, fs.Fsync(x.f, false)).ok(t)
	must(fs.Write(x.f, 200*bs, src[200*bs:])).ok(t)
	srcBlocks := must(fs.GetAttr(x.f)).ok(t).Blocks
	// The destination is full of other data where the source has holes.
	dst := punchData(len(src)+5*bs, 9)
	must(fs.Write(x.g, 0, dst)).ok(t)
	must(0, fs.Fsync(x.g, false)).ok(t)
	full := must(fs.GetAttr(x.g)).ok(t).Blocks
	if got := must(fs.CopyRange(x.f, 0, x.g, 0, int64(len(src)))).ok(t); got != int64(len(src)) {
		t.Fatalf("copied %d of %d bytes", got, len(src))
	}
	copy(dst, src)
	x.readIs(t, x.g, dst)
	// The 5 blocks past the copy keep their data; the 197 hole blocks are
	// freed.
	if got := must(fs.GetAttr(x.g)).ok(t).Blocks; got != srcBlocks+5*bs/512 {
		t.Fatalf("st_blocks %d after the copy (%d before, source %d): want the source's plus the 5 blocks past the copy", got, full, srcBlocks)
	}
	// At another place in the block: copied as data, dense.
	h := must(fs.Create(RootIno, "h", 0o644, 0, 0)).ok(t).Ino
	if got := must(fs.CopyRange(x.f, 0, h, 10, int64(len(src)))).ok(t); got != int64(len(src)) {
		t.Fatalf("unaligned: copied %d of %d bytes", got, len(src))
	}
	x.readIs(t, h, append(make([]byte, 10), src...))
	x.im.remount()
	x.fs = x.im.fs
	x.readIs(t, x.g, dst)
	x.readIs(t, h, append(make([]byte, 10), src...))
}

// TestCopySegments: how a copy's source range splits into data and hole
// runs, block by block (4 KiB blocks; block 1 and 2 are holes).
func TestCopySegments(t *testing.T) {
	x := newFixture(t)
	fs := x.fs
	must(fs.Write(x.f, 0, punchData(4096, 1))).ok(t)
	must(fs.Write(x.f, 3*4096, punchData(4096, 2))).ok(t)
	cases := []struct {
		off, end, dst uint64
		want          []copySegment
	}{
		{100, 200, 100, []copySegment{{100, 200, false}}},
		{100, 5000, 100, []copySegment{{100, 4096, false}, {4096, 5000, false}}},
		{0, 16384, 0, []copySegment{{0, 4096, false}, {4096, 12288, true}, {12288, 16384, false}}},
		{10, 16000, 4106, []copySegment{{10, 4096, false}, {4096, 12288, true}, {12288, 16000, false}}},
		{0, 16384, 1, []copySegment{{0, 16384, false}}},
	}
	for _, c := range cases {
		fs.lock()
		in, err := fs.fileLocked(x.f)
		var got []copySegment
		if err == nil {
			got, err = fs.copySegmentsLocked(in, c.off, c.end, c.dst)
		}
		fs.unlock()
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range got { // contiguous, in order, covering [off, end)
			if (i == 0 && s.off != c.off) || (i > 0 && s.off != got[i-1].end) || s.off >= s.end {
				t.Fatalf("[%d, %d) to %d: segments %v do not tile the range", c.off, c.end, c.dst, got)
			}
		}
		if len(got) == 0 || got[len(got)-1].end != c.end {
			t.Fatalf("[%d, %d) to %d: segments %v do not reach the end", c.off, c.end, c.dst, got)
		}
		merged := []copySegment{}
		for _, s := range got { // adjacent data segments may stay apart
			if n := len(merged); n > 0 && merged[n-1].end == s.off && merged[n-1].hole == s.hole {
				merged[n-1].end = s.end
				continue
			}
			merged = append(merged, s)
		}
		want := []copySegment{}
		for _, s := range c.want {
			if n := len(want); n > 0 && want[n-1].end == s.off && want[n-1].hole == s.hole {
				want[n-1].end = s.end
				continue
			}
			want = append(want, s)
		}
		if fmt.Sprint(merged) != fmt.Sprint(want) {
			t.Errorf("[%d, %d) to %d: %v, want %v", c.off, c.end, c.dst, got, c.want)
		}
	}
}
