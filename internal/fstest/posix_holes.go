package fstest

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testSeekDataHole asserts only what Linux guarantees for every file
// system (one without SEEK_DATA support treats the whole file as data): a
// SEEK_DATA inside data returns the offset itself, SEEK_HOLE finds a hole
// no earlier than the end of the data and no later than the end of the
// file, both move the file offset, and both fail with ENXIO at or past
// the end.
func testSeekDataHole(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	f, err := os.Create(p)
	mustDo(t, "create", err)
	defer f.Close()
	fd := int(f.Fd())
	_, err = unix.Seek(fd, 0, unix.SEEK_DATA)
	wantErrno(t, "SEEK_DATA in an empty file", err, unix.ENXIO)
	_, err = f.Write(pattern(8192, 15))
	mustDo(t, "write", err)
	const size = 1 << 20
	mustDo(t, "ftruncate", f.Truncate(size))
	mustDo(t, "fsync", f.Sync())
	for _, off := range []int64{0, 100, 8191} {
		got, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if err != nil || got != off {
			t.Fatalf("SEEK_DATA at %d inside data: %d, %v", off, got, err)
		}
	}
	h, err := unix.Seek(fd, 0, unix.SEEK_HOLE)
	mustDo(t, "SEEK_HOLE", err)
	if h < 8192 || h > size {
		t.Fatalf("SEEK_HOLE from 0 = %d, want within [8192, %d]", h, size)
	}
	if cur, _ := unix.Seek(fd, 0, io.SeekCurrent); cur != h {
		t.Fatalf("offset %d after SEEK_HOLE returned %d", cur, h)
	}
	if h, err = unix.Seek(fd, 500000, unix.SEEK_HOLE); err != nil || h < 500000 || h > size {
		t.Fatalf("SEEK_HOLE from inside the hole = %d, %v", h, err)
	}
	for _, off := range []int64{size, size + 4096} {
		_, err = unix.Seek(fd, off, unix.SEEK_DATA)
		wantErrno(t, "SEEK_DATA at or past the end", err, unix.ENXIO)
		_, err = unix.Seek(fd, off, unix.SEEK_HOLE)
		wantErrno(t, "SEEK_HOLE at or past the end", err, unix.ENXIO)
	}
}

// testTruncatePartialBlock shrinks a file written out to the file system
// into the middle of a block, then grows it by pwrite and by truncate: the
// old bytes past the cut must not come back, in the cut block or after it.
func testTruncatePartialBlock(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	data := pattern(3*65536+100, 20)
	writeFile(t, p, data)
	dropCache(t, p)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	want := append([]byte{}, data[:5000]...)
	for _, step := range []struct{ cut, grow int }{{5000, 10000}, {4096, 70000}, {65537, 140000}} {
		mustDo(t, "ftruncate down", f.Truncate(int64(step.cut)))
		mustDo(t, "fsync", f.Sync())
		want = want[:step.cut]
		_, err = f.WriteAt([]byte("x"), int64(step.grow))
		mustDo(t, "pwrite past the end", err)
		want = append(append(want, make([]byte, step.grow-step.cut)...), 'x')
		mustDo(t, "ftruncate up", f.Truncate(int64(step.grow+5000)))
		want = append(want, make([]byte, 4999)...)
		dropCache(t, p)
		wantContent(t, p, want)
	}
}

// testFallocatePunchHole: PUNCH_HOLE (with KEEP_SIZE, which Linux requires)
// and ZERO_RANGE zero their range and keep the size; a file system may
// refuse either with EOPNOTSUPP, and must then change nothing.
func testFallocatePunchHole(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	want := pattern(12*4096, 21)
	writeFile(t, p, want)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	mustDo(t, "open", err)
	defer f.Close()
	wantErrno(t, "PUNCH_HOLE without KEEP_SIZE",
		unix.Fallocate(fd(f), unix.FALLOC_FL_PUNCH_HOLE, 0, 4096), unix.EOPNOTSUPP)
	for _, c := range []struct {
		what      string
		mode      uint32
		off, size int
	}{
		{"PUNCH_HOLE", unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE, 4096, 8192},
		{"PUNCH_HOLE unaligned", unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE, 20000, 10000},
		{"ZERO_RANGE", unix.FALLOC_FL_ZERO_RANGE, 100, 5000},
	} {
		err := unix.Fallocate(fd(f), c.mode, int64(c.off), int64(c.size))
		if err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
			t.Fatalf("%s: %v", c.what, err)
		}
		if err == nil {
			clear(want[c.off : c.off+c.size])
		}
		dropCache(t, p)
		wantContent(t, p, want)
	}
}

// testSeekDataMmap: a page stored into through a shared mapping of a
// sparse file, not synced, is data to SEEK_DATA and SEEK_HOLE (or the whole
// file is, on a file system without holes): a copier that skips holes must
// not skip it. FUSE sends lseek without writing dirty pages back first.
func testSeekDataMmap(t *testing.T, dir string) {
	const size, page = 1 << 20, 100 * 4096
	f, err := os.Create(filepath.Join(dir, "f"))
	mustDo(t, "create", err)
	defer f.Close()
	mustDo(t, "ftruncate", f.Truncate(size))
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	mustDo(t, "mmap MAP_SHARED", err)
	defer unix.Munmap(m)
	mapWrite(t, m[page:], pattern(4096, 9))
	d, err := unix.Seek(fd(f), 0, unix.SEEK_DATA)
	if err != nil || d > page {
		t.Fatalf("SEEK_DATA from 0 = %d, %v: past the page stored at %d", d, err, page)
	}
	if h, err := unix.Seek(fd(f), page, unix.SEEK_HOLE); err != nil || h <= page {
		t.Fatalf("SEEK_HOLE from the stored page at %d = %d, %v", page, h, err)
	}
}
