package diskfs

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
	"golang.org/x/sys/unix"
)

// serveNew formats a 16 MiB image and serves it.
func serveNew(t *testing.T, p vld.Placement) *served {
	t.Helper()
	needFUSE(t)
	img := filepath.Join(t.TempDir(), "disk.img")
	createImage(t, img, 16<<20, p)
	return serveImage(t, img)
}

// TestDiskFileIO writes and reads the exported file at unaligned offsets
// through the kernel, and checks fsync, punch hole and zero range against
// a byte-slice model.
func TestDiskFileIO(t *testing.T) {
	s := serveNew(t, vld.PlaceEager)
	f, err := os.OpenFile(s.disk(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() != s.ld.Size() {
		t.Fatalf("stat: size %d, %v; want %d", st.Size(), err, s.ld.Size())
	}
	seed := testseed.Pick(t, *seedFlag, "diskfs.seed")
	rng := rand.New(rand.NewSource(seed))
	ref := make([]byte, 1<<20)
	for i := 0; i < 60; i++ {
		off, n := rng.Int63n(int64(len(ref))-70000), 1+rng.Intn(70000)
		data := make([]byte, n)
		rng.Read(data)
		if _, err := f.WriteAt(data, off); err != nil {
			t.Fatalf("pwrite %d at %d: %v", n, off, err)
		}
		copy(ref[off:], data)
	}
	checkRange(t, f, ref, "after writes")
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		t.Fatalf("fdatasync: %v", err)
	}
	fallocs := []struct {
		mode     uint32
		off, len int64
	}{
		{unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_KEEP_SIZE, 12345, 3 * 4096},
		{unix.FALLOC_FL_ZERO_RANGE | unix.FALLOC_FL_KEEP_SIZE, 200000, 40000},
		{unix.FALLOC_FL_ZERO_RANGE, 500001, 100},
	}
	for _, c := range fallocs {
		if err := unix.Fallocate(int(f.Fd()), c.mode, c.off, c.len); err != nil {
			t.Fatalf("fallocate mode %#x [%d, +%d): %v", c.mode, c.off, c.len, err)
		}
		clear(ref[c.off : c.off+c.len])
	}
	checkRange(t, f, ref, "after fallocate")
	if err := f.Sync(); err != nil {
		t.Fatalf("fsync: %v", err)
	}
	rep := readReport(t, s.dir)
	if rep.Disk.FreedByTrimBlocks == 0 || rep.Disk.Syncs < 2 || rep.FUSE["fallocate_punch_hole"].Count != 1 {
		t.Fatalf("stats: freed by trim %d, syncs %d, punch holes %d; want > 0, >= 2, 1",
			rep.Disk.FreedByTrimBlocks, rep.Disk.Syncs, rep.FUSE["fallocate_punch_hole"].Count)
	}
	if rep.Disk.Sim.TotalMs <= 0 || rep.Disk.Placement != "eager" || rep.PID != os.Getpid() {
		t.Fatalf("stats: sim %v ms, placement %q, pid %d", rep.Disk.Sim.TotalMs, rep.Disk.Placement, rep.PID)
	}
}

func checkRange(t *testing.T, f *os.File, ref []byte, when string) {
	t.Helper()
	got := make([]byte, len(ref))
	if _, err := f.ReadAt(got, 0); err != nil {
		t.Fatalf("%s: pread: %v", when, err)
	}
	if i := firstDiff(got, ref); i >= 0 {
		t.Fatalf("%s: byte %d is %#x, want %#x", when, i, got[i], ref[i])
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func readReport(t *testing.T, dir string) Report {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, StatsFile))
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("stats file: %v\n%s", err, b)
	}
	return r
}

// TestDiskFileBadInput: nothing may grow, shrink or leave the disk; the
// directory holds exactly two files and takes no new ones.
func TestDiskFileBadInput(t *testing.T) {
	s := serveNew(t, vld.PlaceInPlace)
	f, err := os.OpenFile(s.disk(), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := s.ld.Size()
	tail := bytes.Repeat([]byte{0x7e}, 64)
	if _, err := f.WriteAt(tail, size-64); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		do   func() error
		want []syscall.Errno
	}{
		{"write at end", func() error { _, err := f.WriteAt([]byte{1}, size); return err }, []syscall.Errno{syscall.EFBIG, syscall.ENOSPC}},
		{"write across end", func() error { _, err := f.WriteAt(make([]byte, 128), size-64); return err }, []syscall.Errno{syscall.EFBIG, syscall.ENOSPC}},
		{"grow", func() error { return f.Truncate(size + 4096) }, []syscall.Errno{syscall.EFBIG}},
		{"shrink", func() error { return f.Truncate(size - 4096) }, []syscall.Errno{syscall.EPERM}},
		{"allocate beyond", func() error { return unix.Fallocate(int(f.Fd()), 0, size-10, 100) }, []syscall.Errno{syscall.EFBIG}},
		{"collapse range", func() error { return unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_COLLAPSE_RANGE, 0, 4096) }, []syscall.Errno{syscall.EOPNOTSUPP}},
		{"create file", func() error { return os.WriteFile(filepath.Join(s.dir, "x"), nil, 0o644) }, []syscall.Errno{syscall.EPERM}},
		{"write stats", func() error { return os.WriteFile(filepath.Join(s.dir, StatsFile), nil, 0o644) }, []syscall.Errno{syscall.EACCES}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			ok := false
			for _, e := range c.want {
				ok = ok || errors.Is(err, e)
			}
			if !ok {
				t.Fatalf("got %v, want one of %v", err, c.want)
			}
			got := make([]byte, 64)
			if _, err := f.ReadAt(got, size-64); err != nil || !bytes.Equal(got, tail) {
				t.Fatalf("the last 64 bytes changed (%v)", err)
			}
			if st, err := f.Stat(); err != nil || st.Size() != size {
				t.Fatalf("size now %d (%v), want %d", st.Size(), err, size)
			}
		})
	}
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "disk,stats" {
		t.Fatalf("directory lists %v, want disk and stats", names)
	}
}

// TestUnmountRefusedWhileOpen: an open descriptor on the disk file keeps
// the mount; the refusal names the process.
func TestUnmountRefusedWhileOpen(t *testing.T) {
	s := serveNew(t, vld.PlaceEager)
	f, err := os.Open(s.disk())
	if err != nil {
		t.Fatal(err)
	}
	err = s.srv.Unmount()
	f.Close()
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "process") {
		t.Fatalf("Unmount with the disk open = %v, want ErrBusy naming the process", err)
	}
	if err := s.srv.Unmount(); err != nil {
		t.Fatalf("Unmount after close: %v", err)
	}
}
