package fstest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// testODirect: aligned O_DIRECT writes and reads, beside a buffered reader
// whose cached pages must not hide what the direct write wrote. Only
// aligned I/O is checked: local file systems refuse unaligned O_DIRECT
// with EINVAL, while FUSE passes it on to the server.
func testODirect(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(16384, 17)
	writeFile(t, p, data)
	r, err := os.Open(p)
	mustDo(t, "open", err)
	defer r.Close()
	buf := make([]byte, len(data))
	_, err = r.ReadAt(buf, 0) // fills the page cache
	mustDo(t, "buffered read", err)
	d, err := os.OpenFile(p, os.O_RDWR|unix.O_DIRECT, 0)
	if errors.Is(err, unix.EINVAL) {
		t.Skip("this file system refuses O_DIRECT")
	}
	mustDo(t, "open O_DIRECT", err)
	defer d.Close()
	w := aligned(8192)
	copy(w, pattern(8192, 18))
	n, err := d.WriteAt(w, 4096)
	if err != nil || n != len(w) {
		t.Fatalf("direct pwrite: %d bytes, %v", n, err)
	}
	copy(data[4096:], w)
	if _, err = r.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data) {
		t.Fatalf("buffered read after a direct write: %v, equal %v", err, bytes.Equal(buf, data))
	}
	n, err = d.WriteAt(w[:4096], 16384) // extends the file
	if err != nil || n != 4096 {
		t.Fatalf("direct pwrite at the end: %d bytes, %v", n, err)
	}
	data = append(data, w[:4096]...)
	rd := aligned(len(data) + 4096)
	n, err = d.ReadAt(rd, 0)
	if n != len(data) || !bytes.Equal(rd[:n], data) {
		t.Fatalf("direct read: %d bytes (%v), equal %v", n, err, bytes.Equal(rd[:n], data))
	}
	mustDo(t, "close", d.Close())
	dropCache(t, p)
	wantContent(t, p, data)
}

// aligned returns n bytes starting at a 4 KiB boundary.
func aligned(n int) []byte {
	b := make([]byte, n+4096)
	skip := int(-uintptr(unsafe.Pointer(&b[0])) & 4095)
	return b[skip : skip+n]
}
