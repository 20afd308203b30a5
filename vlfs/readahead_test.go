package vlfs

import (
	"bytes"
	"testing"
)

// TestDeviceRanges reads the image at the ranges DeviceRanges returns and
// compares with the file: the ranges must hold exactly the file's written,
// on-disk blocks in file order, leaving out holes and buffered blocks, and
// a call cut short by maxRanges must say where to go on so that a series
// of calls covers the file.
func TestDeviceRanges(t *testing.T) {
	im := newImage(t, 64<<20)
	fs := im.fs
	bs := int64(fs.geo.bs)
	ino := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t).Ino
	block := func(i int64) []byte { return bytes.Repeat([]byte{byte(i*7 + 1)}, int(bs)) }
	var onDisk []byte
	const n = 300 // past the direct blocks, into the indirect tree
	for i := int64(0); i < n; i++ {
		if i%50 == 10 {
			continue // a hole
		}
		must(fs.Write(ino, i*bs, block(i))).ok(t)
		onDisk = append(onDisk, block(i)...)
	}
	if err := fs.Sync(); err != nil {
		t.Fatal(err)
	}
	must(fs.Write(ino, n*bs, block(n))).ok(t) // buffered, not on disk yet

	tests := []struct {
		name      string
		off, len  int64
		maxRanges int
		want      []byte
		covered   int64
	}{
		{"whole file", 0, (n + 1) * bs, 1 << 20, onDisk, (n + 1) * bs},
		{"one block", 3 * bs, bs, 10, block(3), 4 * bs},
		{"a hole", 10 * bs, bs, 10, nil, 11 * bs},
		{"buffered block", n * bs, bs, 10, nil, (n + 1) * bs},
		{"past the end", (n + 5) * bs, bs, 10, nil, (n + 6) * bs},
		{"across the end", n * bs, 8 * bs, 10, nil, (n + 8) * bs},
	}
	read := func(t *testing.T, rs []DeviceRange) []byte {
		var got []byte
		for i, r := range rs {
			if i > 0 && rs[i-1].Off+rs[i-1].Len == r.Off {
				t.Errorf("ranges %d and %d are adjacent but not merged: %+v %+v", i-1, i, rs[i-1], r)
			}
			b := make([]byte, r.Len)
			if _, err := im.dev.ReadAt(b, r.Off); err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
		}
		return got
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, covered, err := fs.DeviceRanges(ino, tc.off, tc.len, tc.maxRanges)
			if err != nil {
				t.Fatal(err)
			}
			if got := read(t, rs); !bytes.Equal(got, tc.want) {
				t.Errorf("%d ranges hold %d bytes, not the file's %d on-disk bytes", len(rs), len(got), len(tc.want))
			}
			if covered != tc.covered {
				t.Errorf("covered to %d, want %d", covered, tc.covered)
			}
		})
	}
	// Cut short at every call, then go on from where each stopped: the
	// pieces must add up to the file, and every call must make progress.
	for _, maxRanges := range []int{1, 2, 3} {
		var got []byte
		calls := 0
		for off := int64(0); off < n*bs; calls++ {
			rs, covered, err := fs.DeviceRanges(ino, off, n*bs-off, maxRanges)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) > maxRanges || covered <= off {
				t.Fatalf("maxRanges %d at %d: %d ranges, covered to %d", maxRanges, off, len(rs), covered)
			}
			got = append(got, read(t, rs)...)
			off = covered
		}
		if !bytes.Equal(got, onDisk) {
			t.Errorf("maxRanges %d: %d calls hold %d bytes, not the file's %d", maxRanges, calls, len(got), len(onDisk))
		}
	}
	for _, bad := range []struct {
		name      string
		ino       Ino
		off, len  int64
		maxRanges int
	}{
		{"negative offset", ino, -1, bs, 1},
		{"no ranges allowed", ino, 0, bs, 0},
		{"a directory", RootIno, 0, bs, 1},
	} {
		if _, _, err := fs.DeviceRanges(bad.ino, bad.off, bad.len, bad.maxRanges); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}
