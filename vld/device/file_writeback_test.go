package device

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// TestEarlyWriteback: with WritebackBytes a file starts the kernel's
// writeback once per that many bytes written (whatever the write calls),
// never without it, and the data reads back whole; a negative interval is
// refused.
func TestEarlyWriteback(t *testing.T) {
	const size = 1 << 20
	for _, c := range []struct {
		name      string
		every     int64
		vec       bool // write with WriteVecAt instead of WriteAt
		wantKicks func(int64) bool
	}{
		{"off", 0, false, func(k int64) bool { return k == 0 }},
		{"every 64 KiB", 64 << 10, false, func(k int64) bool { return k >= 1 && k <= 16 }},
		{"every 64 KiB, vectored", 64 << 10, true, func(k int64) bool { return k >= 1 && k <= 16 }},
		{"more than written", 2 * size, false, func(k int64) bool { return k == 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := OpenFile(filepath.Join(t.TempDir(), "img"), FileOptions{Create: true, Size: size, WritebackBytes: c.every})
			if err != nil {
				t.Fatal(err)
			}
			want := bytes.Repeat([]byte("early writeback "), size/16)
			for off := 0; off < size; off += 8192 {
				var err error
				if c.vec {
					_, err = d.WriteVecAt([][]byte{want[off : off+4096], want[off+4096 : off+8192]}, int64(off))
				} else {
					_, err = d.WriteAt(want[off:off+8192], int64(off))
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			got := make([]byte, size)
			if _, err := d.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("read back: %v, equal %v", err, bytes.Equal(got, want))
			}
			if err := d.Close(); err != nil { // waits for the kicks sent
				t.Fatal(err)
			}
			if k := d.Kicks(); !c.wantKicks(k) {
				t.Fatalf("%d early writebacks for %d bytes written every %d", k, size, c.every)
			}
		})
	}
	_, err := OpenFile(filepath.Join(t.TempDir(), "img"), FileOptions{Create: true, Size: 4096, WritebackBytes: -1})
	if !errors.Is(err, ErrBadOptions) {
		t.Fatalf("negative interval: %v, want ErrBadOptions", err)
	}
}
