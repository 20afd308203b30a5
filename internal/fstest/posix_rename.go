package fstest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func testRenameFile(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, []byte("content"))
	ino := lstat(t, a).Ino
	mustDo(t, "rename", os.Rename(a, b))
	var st unix.Stat_t
	wantErrno(t, "old name after rename", unix.Lstat(a, &st), unix.ENOENT)
	wantContent(t, b, []byte("content"))
	if got := lstat(t, b).Ino; got != ino {
		t.Fatalf("rename changed the inode number %d -> %d", ino, got)
	}
	wantErrno(t, "rename a missing file", os.Rename(a, b), unix.ENOENT)
}

func testRenameOverwrite(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, []byte("new"))
	writeFile(t, b, []byte("old content"))
	f, err := os.Open(b) // the replaced file stays readable while open
	mustDo(t, "open target", err)
	defer f.Close()
	mustDo(t, "rename over", os.Rename(a, b))
	wantContent(t, b, []byte("new"))
	if got := names(t, dir); !equalStrings(got, []string{"b"}) {
		t.Fatalf("directory holds %v", got)
	}
	buf := make([]byte, 20)
	n, _ := f.ReadAt(buf, 0)
	if string(buf[:n]) != "old content" {
		t.Fatalf("replaced file read %q through an open descriptor", buf[:n])
	}
}

func testRenameCrossDir(t *testing.T, dir string) {
	d1, d2 := filepath.Join(dir, "d1"), filepath.Join(dir, "d2")
	mustDo(t, "mkdir", unix.Mkdir(d1, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(d2, 0o755))
	writeFile(t, filepath.Join(d1, "f"), []byte("moved"))
	mustDo(t, "rename across", os.Rename(filepath.Join(d1, "f"), filepath.Join(d2, "g")))
	wantContent(t, filepath.Join(d2, "g"), []byte("moved"))
	if got := names(t, d1); len(got) != 0 {
		t.Fatalf("source dir still lists %v", got)
	}
}

func testRenameDirOntoEmpty(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustDo(t, "mkdir", unix.Mkdir(a, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(b, 0o755))
	writeFile(t, filepath.Join(a, "inside"), []byte("i"))
	mustDo(t, "rename dir onto empty dir", unix.Rename(a, b)) // os.Rename refuses existing directories
	wantContent(t, filepath.Join(b, "inside"), []byte("i"))
	if got := names(t, dir); !equalStrings(got, []string{"b"}) {
		t.Fatalf("directory holds %v", got)
	}
}

func testRenameDirOntoFull(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	mustDo(t, "mkdir", unix.Mkdir(a, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(b, 0o755))
	writeFile(t, filepath.Join(b, "keep"), nil)
	wantErrno(t, "rename dir onto non-empty dir", unix.Rename(a, b), unix.ENOTEMPTY)
	if got := names(t, b); !equalStrings(got, []string{"keep"}) {
		t.Fatalf("target now holds %v", got)
	}
}

func testRenameTypeMismatch(t *testing.T, dir string) {
	d, f := filepath.Join(dir, "d"), filepath.Join(dir, "f")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	writeFile(t, f, nil)
	wantErrno(t, "rename file onto dir", unix.Rename(f, d), unix.EISDIR)
	wantErrno(t, "rename dir onto file", unix.Rename(d, f), unix.ENOTDIR)
}

func testRenameDirLinkCounts(t *testing.T, dir string) {
	p1, p2 := filepath.Join(dir, "p1"), filepath.Join(dir, "p2")
	mustDo(t, "mkdir", unix.Mkdir(p1, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(p2, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(filepath.Join(p1, "c"), 0o755))
	mustDo(t, "rename dir across", os.Rename(filepath.Join(p1, "c"), filepath.Join(p2, "c")))
	if n1, n2 := lstat(t, p1).Nlink, lstat(t, p2).Nlink; n1 != 2 || n2 != 3 {
		t.Fatalf("after moving a subdirectory: nlink %d and %d, want 2 and 3", n1, n2)
	}
	// ".." of the moved directory now names the new parent.
	if lstat(t, filepath.Join(p2, "c", "..")).Ino != lstat(t, p2).Ino {
		t.Fatal(`".." of the moved directory is not its new parent`)
	}
}

func testRenameSameInode(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, []byte("x"))
	mustDo(t, "link", os.Link(a, b))
	mustDo(t, "rename onto a link of the same inode", os.Rename(a, b))
	if got := names(t, dir); !equalStrings(got, []string{"a", "b"}) {
		t.Fatalf("rename between hard links of one inode changed the directory: %v", got)
	}
	mustDo(t, "rename to itself", os.Rename(a, a))
	if lstat(t, a).Nlink != 2 {
		t.Fatal("link count changed")
	}
}

func testRenameIntoOwnSubdir(t *testing.T, dir string) {
	a := filepath.Join(dir, "a")
	mustDo(t, "mkdir", unix.Mkdir(a, 0o755))
	mustDo(t, "mkdir", unix.Mkdir(filepath.Join(a, "b"), 0o755))
	wantErrno(t, "rename a dir into its own subdirectory", unix.Rename(a, filepath.Join(a, "b", "c")), unix.EINVAL)
}

func testHardLink(t *testing.T, dir string) {
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeFile(t, a, []byte("shared"))
	mustDo(t, "link", os.Link(a, b))
	sa, sb := lstat(t, a), lstat(t, b)
	if sa.Ino != sb.Ino || sa.Nlink != 2 || sb.Nlink != 2 {
		t.Fatalf("after link: inodes %d %d nlink %d %d", sa.Ino, sb.Ino, sa.Nlink, sb.Nlink)
	}
	writeFile(t, b, []byte("changed via b"))
	wantContent(t, a, []byte("changed via b"))
	wantErrno(t, "link onto an existing name", os.Link(a, b), unix.EEXIST)
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	wantErrno(t, "link a directory", os.Link(d, filepath.Join(dir, "d2")), unix.EPERM)
	mustDo(t, "unlink a", os.Remove(a))
	if n := lstat(t, b).Nlink; n != 1 {
		t.Fatalf("nlink %d after unlinking one of two links", n)
	}
	wantContent(t, b, []byte("changed via b"))
}

func testSymlink(t *testing.T, dir string) {
	target := filepath.Join(dir, "target")
	link := filepath.Join(dir, "link")
	writeFile(t, target, []byte("via link"))
	mustDo(t, "symlink", os.Symlink("target", link))
	got, err := os.Readlink(link)
	mustDo(t, "readlink", err)
	if got != "target" {
		t.Fatalf("readlink %q", got)
	}
	st := lstat(t, link)
	if st.Mode&unix.S_IFMT != unix.S_IFLNK || st.Size != int64(len("target")) {
		t.Fatalf("lstat of symlink: mode %o size %d", st.Mode, st.Size)
	}
	wantContent(t, link, []byte("via link"))
	long := "x/" + fillName(1000)
	mustDo(t, "dangling long symlink", os.Symlink(long, filepath.Join(dir, "dangling")))
	got, err = os.Readlink(filepath.Join(dir, "dangling"))
	mustDo(t, "readlink", err)
	if got != long {
		t.Fatalf("readlink of a 1000-byte target returned %d bytes", len(got))
	}
	_, err = os.Stat(filepath.Join(dir, "dangling"))
	wantErrno(t, "stat through a dangling symlink", err, unix.ENOENT)
}

func fillName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
		if i%200 == 199 {
			b[i] = '/'
		}
	}
	return string(b)
}

func testMkfifo(t *testing.T, dir string) {
	p := filepath.Join(dir, "fifo")
	mustDo(t, "mkfifo", unix.Mkfifo(p, 0o640))
	st := lstat(t, p)
	if st.Mode&unix.S_IFMT != unix.S_IFIFO || st.Mode&0o777 != 0o640 {
		t.Fatalf("fifo mode %o", st.Mode)
	}
	sock := filepath.Join(dir, "sock")
	mustDo(t, "mknod socket", unix.Mknod(sock, unix.S_IFSOCK|0o600, 0))
	if st := lstat(t, sock); st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		t.Fatalf("socket mode %o", st.Mode)
	}
}

func testMknodCharDevice(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		t.Skip("mknod of a device needs root")
	}
	p := filepath.Join(dir, "null")
	dev := unix.Mkdev(1, 3)
	mustDo(t, "mknod", unix.Mknod(p, unix.S_IFCHR|0o666, int(dev)))
	st := lstat(t, p)
	if st.Mode&unix.S_IFMT != unix.S_IFCHR || st.Rdev != dev {
		t.Fatalf("char device: mode %o rdev %#x, want rdev %#x", st.Mode, st.Rdev, dev)
	}
	b := filepath.Join(dir, "blk")
	bdev := unix.Mkdev(7, 200)
	mustDo(t, "mknod block", unix.Mknod(b, unix.S_IFBLK|0o600, int(bdev)))
	if st := lstat(t, b); st.Mode&unix.S_IFMT != unix.S_IFBLK || st.Rdev != bdev {
		t.Fatalf("block device: mode %o rdev %#x", st.Mode, st.Rdev)
	}
}
