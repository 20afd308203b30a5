package vlfs

import (
	"bytes"
	"testing"
)

// TestDeviceRanges reads the image at the ranges DeviceRanges returns and
// compares with the file: the ranges must hold exactly the file's written,
// on-disk blocks in file order, leaving out holes and buffered blocks.
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
	}{
		{"whole file", 0, (n + 1) * bs, 1 << 20, onDisk},
		{"one block", 3 * bs, bs, 10, block(3)},
		{"a hole", 10 * bs, bs, 10, nil},
		{"buffered block", n * bs, bs, 10, nil},
		{"past the end", (n + 5) * bs, bs, 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := must(fs.DeviceRanges(ino, tc.off, tc.len, tc.maxRanges)).ok(t)
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
			if !bytes.Equal(got, tc.want) {
				t.Errorf("%d ranges hold %d bytes, not the file's %d on-disk bytes", len(rs), len(got), len(tc.want))
			}
		})
	}
	if rs := must(fs.DeviceRanges(ino, 0, n*bs, 2)).ok(t); len(rs) > 2 {
		t.Errorf("maxRanges 2: got %d ranges", len(rs))
	}
	if _, err := fs.DeviceRanges(ino, -1, bs, 1); err == nil {
		t.Error("negative offset: no error")
	}
	if _, err := fs.DeviceRanges(RootIno, 0, bs, 1); err == nil {
		t.Error("a directory: no error")
	}
}
