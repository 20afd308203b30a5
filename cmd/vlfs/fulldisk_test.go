package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
)

// Issue 30 through the kernel: fill an image to ENOSPC, delete about a
// fifth of it, and the space is free at once, the deletes survive the
// unmount, fsck is clean and the freed space takes new files. Before the
// fix the commit holding the deletes never fitted: statfs still said
// full, fsync of the directory failed with ENOSPC, umount said
// "unmounted", and every delete was gone at the next mount.

// fullShape is how the kernel test fills the disk and what it removes.
type fullShape struct {
	name    string
	size    func(i int) int
	links   bool // a hard link and an xattr per file, in directories of 64
	removed func(i int) bool
}

var fullShapes = []fullShape{
	{name: "4KiB files", size: func(int) int { return 4096 }, removed: func(i int) bool { return i%5 == 0 }},
	{name: "1MiB files", size: func(int) int { return 1 << 20 }, removed: func(i int) bool { return i%5 == 0 }},
	{name: "mixed sizes", size: func(i int) int { return []int{1, 4096, 9000, 70000, 300 << 10, 2 << 20, 12345}[i%7] + i%13 },
		removed: func(i int) bool { return i%5 == 0 }},
	// every fifth directory removed whole (rm -rf), and in the others
	// every fifth file's both names
	{name: "links, xattrs, directories", size: func(int) int { return 4096 }, links: true,
		removed: func(i int) bool { return (i/64)%5 == 0 || i%5 == 0 }},
}

func (sh fullShape) path(mnt string, i int) string {
	if sh.links {
		return filepath.Join(mnt, "fill", fmt.Sprintf("d%d", i/64), fmt.Sprintf("f%d", i))
	}
	return filepath.Join(mnt, "fill", fmt.Sprintf("f%d", i))
}

func fullContent(i, n int) []byte { return bytes.Repeat([]byte(fmt.Sprintf("[%d]", i)), n/3+1)[:n] }

// fill writes files until ENOSPC and returns the sizes of those written
// whole.
func (sh fullShape) fill(t *testing.T, mnt string) []int {
	t.Helper()
	var sizes []int
	for i := 0; ; i++ {
		p := sh.path(mnt, i)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			break
		}
		n := sh.size(i)
		if err := os.WriteFile(p, fullContent(i, n), 0o644); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fill: %v", err)
			}
			os.Remove(p)
			break
		}
		if sh.links {
			if os.Link(p, p+".link") != nil || unix.Setxattr(p, "user.note", bytes.Repeat([]byte{'x'}, 2000), 0) != nil {
				os.Remove(p + ".link")
				os.Remove(p)
				break
			}
		}
		sizes = append(sizes, n)
	}
	if len(sizes) < 10 {
		t.Fatalf("only %d files fitted", len(sizes))
	}
	return sizes
}

// remove deletes what the shape removes and returns the blocks it frees.
func (sh fullShape) remove(t *testing.T, mnt string, sizes []int) int64 {
	t.Helper()
	var freed int64
	for i, n := range sizes {
		if !sh.removed(i) {
			continue
		}
		freed += int64(n+4095) / 4096
		if sh.links && (i/64)%5 == 0 {
			continue // its directory goes whole below
		}
		p := sh.path(mnt, i)
		if err := os.Remove(p); err != nil {
			t.Fatalf("unlink on a full disk: %v", err)
		}
		if sh.links {
			if err := os.Remove(p + ".link"); err != nil {
				t.Fatalf("unlink on a full disk: %v", err)
			}
		}
	}
	if sh.links {
		for d := 0; d*64 < len(sizes); d += 5 {
			if err := os.RemoveAll(filepath.Join(mnt, "fill", fmt.Sprintf("d%d", d))); err != nil {
				t.Fatalf("rm -rf on a full disk: %v", err)
			}
		}
	}
	return freed
}

// verify checks every file after a remount.
func (sh fullShape) verify(t *testing.T, mnt string, sizes []int) {
	t.Helper()
	for i, n := range sizes {
		got, err := os.ReadFile(sh.path(mnt, i))
		switch {
		case sh.removed(i) && !errors.Is(err, os.ErrNotExist):
			t.Fatalf("%s after remount: %v, want deleted", sh.path(mnt, i), err)
		case !sh.removed(i) && (err != nil || !bytes.Equal(got, fullContent(i, n))):
			t.Fatalf("%s after remount: %d bytes, %v; want %d", sh.path(mnt, i), len(got), err, n)
		}
	}
}

func freeBlocks(t *testing.T, mnt string) int64 {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bfree) * st.Bsize / 4096
}

// syncMount commits the mount: syncfs (which reaches a fuseblk mount) and
// an fsync of its root directory (which reaches any mount). After the
// fill, whose last write failed with ENOSPC, the kernel may report that
// write's error to the first syncfs once (the superblock's writeback
// error, errseq); a second call on the same descriptor must succeed.
func syncMount(t *testing.T, mnt string, afterFill bool) {
	t.Helper()
	d, err := os.Open(mnt)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	err = unix.Syncfs(int(d.Fd()))
	if afterFill && errors.Is(err, syscall.ENOSPC) {
		err = unix.Syncfs(int(d.Fd()))
	}
	if err != nil {
		t.Fatalf("syncfs: %v", err)
	}
	if err := d.Sync(); err != nil {
		t.Fatalf("fsync of the mount's root: %v", err)
	}
}

func TestFullDiskDeleteThroughKernel(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	buildVLFS(t)
	for _, sh := range fullShapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := t.TempDir()
			img, mnt := filepath.Join(dir, "img"), filepath.Join(dir, "m")
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			mustRun(t, "mkfs", "--quiet", "--disk", "st19101", "--size", "32MiB", img)
			mustRun(t, "mount", "--background", "--compactor", "off", "--log", filepath.Join(dir, "d.log"), img, mnt)
			t.Cleanup(func() { exec.Command("fusermount3", "-u", "-z", mnt).Run() })
			sizes := sh.fill(t, mnt)
			syncMount(t, mnt, true)
			before := freeBlocks(t, mnt)
			freed := sh.remove(t, mnt, sizes)
			syncMount(t, mnt, false)
			after := freeBlocks(t, mnt)
			r := statsJSON(t, mnt)
			t.Logf("%d files; %d blocks freed; statfs free %d -> %d; %d commits made room, %d failed",
				len(sizes), freed, before, after, r.RoomCommits, r.FailedCommits)
			if after < before+freed*9/10 {
				t.Errorf("statfs free %d -> %d after freeing %d blocks", before, after, freed)
			}
			if r.FailedCommits != 0 || r.CommitError != "" {
				t.Errorf("%d commits failed: %s", r.FailedCommits, r.CommitError)
			}
			mustRun(t, "umount", mnt)
			mustRun(t, "fsck", img)
			mustRun(t, "mount", "--background", "--compactor", "off", img, mnt)
			sh.verify(t, mnt, sizes)
			// the freed space takes new files
			newData := fullContent(7, 64<<10)
			for i := int64(0); i < freed*4096/2/int64(len(newData)); i++ {
				if err := os.WriteFile(filepath.Join(mnt, fmt.Sprintf("new%d", i)), newData, 0o644); err != nil {
					t.Fatalf("new file %d in the freed space: %v", i, err)
				}
			}
			syncMount(t, mnt, false)
			mustRun(t, "umount", mnt)
			mustRun(t, "fsck", img)
		})
	}
}

// TestUmountReportsFailedClose: when the daemon cannot commit at unmount
// (here the image is a sparse file on a tmpfs too small for it, so the
// host refuses its writes), vlfs umount exits non-zero and prints the
// daemon's reason instead of "unmounted", and vlfs stats names the
// failing commit while mounted.
func TestUmountReportsFailedClose(t *testing.T) {
	if ok, why := fstest.Available(); !ok {
		t.Skip(why)
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	buildVLFS(t)
	dir := t.TempDir()
	small, mnt := filepath.Join(dir, "small"), filepath.Join(dir, "m")
	for _, d := range []string{small, mnt} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", small).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", small).Run() })
	img := filepath.Join(small, "img")
	mustRun(t, "mkfs", "--quiet", "--sparse", "--size", "64MiB", img)
	mustRun(t, "mount", "--background", "--compactor", "off", img, mnt)
	t.Cleanup(func() { exec.Command("fusermount3", "-u", "-z", mnt).Run() })
	data := fullContent(1, 1<<20)
	for i := 0; i < 20; i++ {
		if err := os.WriteFile(filepath.Join(mnt, fmt.Sprintf("f%d", i)), data, 0o644); err != nil {
			break // the host's ENOSPC may show up here already
		}
	}
	d, err := os.Open(mnt)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err == nil {
		t.Fatal("fsync succeeded with the image's host file system full")
	}
	d.Close()
	if r := statsJSON(t, mnt); r.FailedCommits == 0 || !strings.Contains(r.CommitError, "no space") {
		t.Errorf("stats: %d failed commits, commit error %q", r.FailedCommits, r.CommitError)
	}
	code, out, errs := runCLI(t, "umount", mnt)
	if code != exitFailure || strings.Contains(out, "unmounted "+mnt) || !strings.Contains(errs, "closing "+img+" failed") {
		t.Fatalf("umount of a mount whose commit fails: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}
