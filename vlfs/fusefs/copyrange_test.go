package fusefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestCopyFileRangeOverFUSE: copy_file_range(2) within a mount reaches the
// server as COPY_FILE_RANGE requests (no READ of the source), with and
// without the writeback cache, including source bytes still dirty in the
// kernel's page cache, and copies exactly; from the stats file it falls
// back to the kernel's copy.
func TestCopyFileRangeOverFUSE(t *testing.T) {
	for _, wt := range []bool{false, true} {
		t.Run(map[bool]string{false: "writeback", true: "writethrough"}[wt], func(t *testing.T) {
			m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{NoWritebackCache: wt}})
			src := make([]byte, 3<<20+777)
			for i := range src {
				src[i] = byte(i*7 + i>>12)
			}
			in, err := os.Create(filepath.Join(m.Dir, "src"))
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if _, err := in.Write(src); err != nil { // not synced: dirty pages in the kernel
				t.Fatal(err)
			}
			out, err := os.Create(filepath.Join(m.Dir, "dst"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			before := m.Server.Report().FUSE
			offIn, offOut := int64(0), int64(0)
			for offIn < int64(len(src)) {
				n, err := unix.CopyFileRange(int(in.Fd()), &offIn, int(out.Fd()), &offOut, len(src), 0)
				if err != nil {
					t.Fatalf("copy_file_range at %d: %v", offIn, err)
				}
				if n == 0 {
					t.Fatalf("copy_file_range copied nothing at %d of %d", offIn, len(src))
				}
			}
			after := m.Server.Report().FUSE
			if c := after["copy_file_range"].Count - before["copy_file_range"].Count; c == 0 {
				t.Errorf("no COPY_FILE_RANGE request reached the server")
			}
			if r := after["read"].Count - before["read"].Count; r != 0 {
				t.Errorf("%d READ requests during the copy, want none", r)
			}
			got, err := os.ReadFile(filepath.Join(m.Dir, "dst"))
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("copy differs (err %v, %d of %d bytes)", err, len(got), len(src))
			}
		})
	}
}

// TestStatsFileFirst: on a fresh mount, before any regular file has been
// stat'ed or copied, the stats file answers statx and copy_file_range.
// The kernel first tries newer opcodes (STATX, COPY_FILE_RANGE_64) and
// falls back only on ENOSYS; the stats node once answered them EPERM.
func TestStatsFileFirst(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	p := filepath.Join(m.Dir, ".vlfs-stats")
	var stx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, 0, unix.STATX_BASIC_STATS, &stx); err != nil {
		t.Fatalf("statx of the stats file on a fresh mount: %v", err)
	}
	st, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cp, err := os.Create(filepath.Join(m.Dir, "stats-copy"))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var o1, o2 int64
	if n, err := unix.CopyFileRange(int(st.Fd()), &o1, int(cp.Fd()), &o2, 1<<20, 0); err != nil || n == 0 {
		t.Fatalf("copy of the stats file: %d, %v", n, err)
	}
}

// TestCopyFileRangeKillsSUID: a copy into a set-user-ID file clears the
// bit, as a write does. The request does not say whether the caller has
// CAP_FSETID, so the server clears it even for root (the safe side).
func TestCopyFileRangeKillsSUID(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	src := filepath.Join(m.Dir, "src")
	if err := os.WriteFile(src, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(m.Dir, "prog")
	if err := os.WriteFile(dst, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var fi os.FileInfo
	if fi, err = out.Stat(); err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Fatalf("set-user-ID not set before the copy: %v, %v", fi.Mode(), err)
	}
	var o1, o2 int64
	if n, err := unix.CopyFileRange(int(in.Fd()), &o1, int(out.Fd()), &o2, 10, 0); err != nil || n != 10 {
		t.Fatalf("copy_file_range: %d, %v", n, err)
	}
	var st unix.Stat_t
	if err := unix.Stat(dst, &st); err != nil {
		t.Fatal(err)
	}
	a, err := m.FS.GetAttr(vlfs.Ino(st.Ino)) // the server's view, not the kernel's cached one
	if err != nil {
		t.Fatal(err)
	}
	if a.Mode&unix.S_ISUID != 0 {
		t.Fatalf("mode %o after a copy into the file: set-user-ID kept", a.Mode)
	}
}
