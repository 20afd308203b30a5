package fstest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testAppendTwoDescriptors: writes through two O_APPEND descriptors
// interleave, each landing at the end the other left, and each leaves its
// descriptor's offset at the new end.
func testAppendTwoDescriptors(t *testing.T, dir string) {
	p := filepath.Join(dir, "log")
	writeFile(t, p, []byte("start\n"))
	var fds [2]*os.File
	for i := range fds {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		mustDo(t, "open O_APPEND", err)
		defer f.Close()
		fds[i] = f
	}
	want := []byte("start\n")
	for i := range 40 {
		line := fmt.Sprintf("%c%02d %s\n", 'a'+i%2, i, bytes.Repeat([]byte{'x'}, i*37%200))
		f := fds[i%2]
		_, err := f.Write([]byte(line))
		mustDo(t, "append", err)
		want = append(want, line...)
		off, err := f.Seek(0, io.SeekCurrent)
		mustDo(t, "lseek SEEK_CUR", err)
		if off != int64(len(want)) {
			t.Fatalf("after append %d the offset is %d, want %d", i, off, len(want))
		}
	}
	var st unix.Stat_t
	mustDo(t, "fstat", unix.Fstat(int(fds[0].Fd()), &st))
	if st.Size != int64(len(want)) {
		t.Fatalf("fstat size %d, want %d", st.Size, len(want))
	}
	dropCache(t, p)
	wantContent(t, p, want)
}

// testTruncateWhileOpen: a truncate by path cuts what a descriptor opened
// before it reads, and a later extension reads back as zeros there.
func testTruncateWhileOpen(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(20000, 14)
	writeFile(t, p, data)
	r, err := os.Open(p)
	mustDo(t, "open", err)
	defer r.Close()
	buf := make([]byte, 20000)
	n, err := r.ReadAt(buf, 0) // fills the page cache
	if n != len(data) || !bytes.Equal(buf, data) {
		t.Fatalf("first read: %d bytes, %v", n, err)
	}
	mustDo(t, "truncate to 5000", os.Truncate(p, 5000))
	dropCache(t, p)
	n, err = r.ReadAt(buf, 4000)
	if n != 1000 || err != io.EOF || !bytes.Equal(buf[:n], data[4000:5000]) {
		t.Fatalf("read across the new end: %d bytes, %v", n, err)
	}
	if n, err = r.ReadAt(buf, 6000); n != 0 || err != io.EOF {
		t.Fatalf("read past the new end: %d bytes, %v", n, err)
	}
	var st unix.Stat_t
	mustDo(t, "fstat", unix.Fstat(int(r.Fd()), &st))
	if st.Size != 5000 {
		t.Fatalf("fstat size %d after truncate, want 5000", st.Size)
	}
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	mustDo(t, "open for writing", err)
	defer w.Close()
	mustDo(t, "ftruncate to 8000", w.Truncate(8000))
	dropCache(t, p)
	n, err = r.ReadAt(buf, 4000)
	want := append(append([]byte{}, data[4000:5000]...), make([]byte, 3000)...)
	if n != 4000 || !bytes.Equal(buf[:n], want) {
		t.Fatalf("read after growing again: %d bytes (%v), old data back: %v", n, err, !bytes.Equal(buf[:n], want))
	}
	w2, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	mustDo(t, "open O_TRUNC", err)
	mustDo(t, "close", w2.Close())
	if n, err = r.ReadAt(buf, 0); n != 0 || err != io.EOF {
		t.Fatalf("read after O_TRUNC: %d bytes, %v", n, err)
	}
}
