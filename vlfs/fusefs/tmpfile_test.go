package fusefs_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
)

// TestTmpfileOverFUSE: vlfs takes O_TMPFILE (the conformance case Tmpfile
// also accepts EOPNOTSUPP, as a host file system may answer), and an
// unnamed file's inode and blocks come back once it is closed.
func TestTmpfileOverFUSE(t *testing.T) {
	m := fstest.MountFS(t, fstest.Options{})
	statfs := func() unix.Statfs_t {
		var s unix.Statfs_t
		if err := unix.Statfs(m.Dir, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := statfs()
	fd, err := unix.Open(m.Dir, unix.O_TMPFILE|unix.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("open O_TMPFILE: %v", err)
	}
	if _, err := unix.Pwrite(fd, make([]byte, 1<<20), 0); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fsync(fd); err != nil {
		t.Fatal(err)
	}
	if mid := statfs(); before.Bfree-mid.Bfree < 256 {
		t.Fatalf("1 MiB in an unnamed file took %d blocks", before.Bfree-mid.Bfree)
	}
	if err := unix.Close(fd); err != nil {
		t.Fatal(err)
	}
	// A named one stays.
	fd, err = unix.Open(m.Dir, unix.O_TMPFILE|unix.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, filepath.Join(m.Dir, "kept"), unix.AT_SYMLINK_FOLLOW); err != nil {
		t.Fatalf("linkat: %v", err)
	}
	// The kernel forgets the closed file's inode on its own time; a
	// directory fsync commits whatever was freed by then.
	for range 100 {
		if after := statfs(); after.Bfree >= before.Bfree-4 && after.Files-after.Ffree == before.Files-before.Ffree+1 {
			return
		}
		d, err := unix.Open(m.Dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Fsync(d)
		unix.Close(d)
		unix.Nanosleep(&unix.Timespec{Nsec: 20e6}, nil)
	}
	after := statfs()
	t.Fatalf("after closing the unnamed file: %d free blocks and %d inodes in use; before it, %d and %d",
		after.Bfree, after.Files-after.Ffree, before.Bfree, before.Files-before.Ffree)
}
