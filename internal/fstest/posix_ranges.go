package fstest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testPartialBlocks: pwrite past the end leaves a zero-filled gap; writes
// that cover parts of blocks (4 KiB pages, 64 KiB runs) read back exactly
// across the block edges, from the page cache and from the file system,
// and overwriting part of a block already written out keeps the rest.
func testPartialBlocks(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	defer f.Close()
	const size = 70013 + 5
	want := make([]byte, size)
	put := func(off int, s string) {
		t.Helper()
		_, err := f.WriteAt([]byte(s), int64(off))
		mustDo(t, "pwrite", err)
		copy(want[off:], s)
	}
	put(0, "abc")
	put(4090, "0123456789")   // across the edge at 4096
	put(65530, "edge-of-64k") // across the edge at 65536
	put(70013, "tail!")       // past the end: a gap from 65541
	check := func(when string) {
		t.Helper()
		var st unix.Stat_t
		mustDo(t, "fstat", unix.Fstat(int(f.Fd()), &st))
		if st.Size != size {
			t.Fatalf("%s: size %d, want %d", when, st.Size, size)
		}
		for _, r := range [][2]int{{0, 8192}, {4086, 20}, {4096, 4}, {65520, 40}, {65541, 4472}, {0, size}} {
			buf := make([]byte, r[1])
			n, err := f.ReadAt(buf, int64(r[0]))
			if n != r[1] || (err != nil && err != io.EOF) || !bytes.Equal(buf, want[r[0]:r[0]+r[1]]) {
				t.Fatalf("%s: pread of %d bytes at %d: %d bytes (%v), equal %v", when, r[1], r[0], n, err,
					bytes.Equal(buf[:n], want[r[0]:r[0]+n]))
			}
		}
	}
	check("before fsync")
	dropCache(t, p)
	check("after fsync, from the file system")
	put(4094, "XY") // the tail of a block written out
	put(8190, "ZZ") // and the start of the next, unwritten
	check("after overwriting parts of written blocks")
	dropCache(t, p)
	check("after overwriting, from the file system")
	mustDo(t, "close", f.Close())
	wantContent(t, p, want)
}

// testCopyFileRange copies between two files with explicit offsets (the
// descriptors' own offsets stay), then with the descriptors' offsets, and
// refuses overlapping ranges of one file.
func testCopyFileRange(t *testing.T, dir string) {
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	data := pattern(300000, 16)
	writeFile(t, src, data)
	writeFile(t, dst, []byte("0123456789"))
	in, err := os.Open(src)
	mustDo(t, "open src", err)
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_RDWR, 0)
	mustDo(t, "open dst", err)
	defer out.Close()
	offIn, offOut := int64(1000), int64(5)
	copyRange(t, in, &offIn, out, &offOut, 200000)
	if offIn != 201000 || offOut != 200005 {
		t.Fatalf("offsets after the copy: in %d out %d, want 201000 and 200005", offIn, offOut)
	}
	for _, f := range []*os.File{in, out} {
		if cur, _ := f.Seek(0, io.SeekCurrent); cur != 0 {
			t.Fatalf("copy with explicit offsets moved a descriptor's offset to %d", cur)
		}
	}
	offIn = int64(len(data))
	if n, err := unix.CopyFileRange(int(in.Fd()), &offIn, int(out.Fd()), &offOut, 100, 0); n != 0 || err != nil {
		t.Fatalf("copy from the end of the source: %d, %v", n, err)
	}
	want := append([]byte("01234"), data[1000:201000]...)
	dropCache(t, dst)
	wantContent(t, dst, want)

	_, err = in.Seek(299990, io.SeekStart)
	mustDo(t, "lseek src", err)
	_, err = out.Seek(3, io.SeekStart)
	mustDo(t, "lseek dst", err)
	copyRange(t, in, nil, out, nil, 10)
	copy(want[3:], data[299990:])
	dropCache(t, dst)
	wantContent(t, dst, want)

	same, err := os.OpenFile(dst, os.O_RDWR, 0)
	mustDo(t, "open dst again", err)
	defer same.Close()
	a, b := int64(0), int64(100)
	_, err = unix.CopyFileRange(int(out.Fd()), &a, int(same.Fd()), &b, 200, 0)
	wantErrno(t, "copy between overlapping ranges of one file", err, unix.EINVAL)
}

// copyRange calls copy_file_range until n bytes are copied (it may copy
// fewer per call).
func copyRange(t *testing.T, in *os.File, offIn *int64, out *os.File, offOut *int64, n int) {
	t.Helper()
	for n > 0 {
		c, err := unix.CopyFileRange(int(in.Fd()), offIn, int(out.Fd()), offOut, n, 0)
		mustDo(t, "copy_file_range", err)
		if c == 0 {
			t.Fatalf("copy_file_range copied nothing with %d bytes to go", n)
		}
		n -= c
	}
}
