package fstest

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testRenameOntoEmptyAcross moves a directory across parents onto an
// empty directory there: the new parent's link count stays (one
// subdirectory replaces another), the old parent's drops, ".." of the
// moved directory (seen through a descriptor opened before) is the new
// parent, and the replaced directory, still open, is dead: link count 0,
// unlistable, and nothing can be created in it.
func testRenameOntoEmptyAcross(t *testing.T, dir string) {
	p1, p2 := filepath.Join(dir, "p1"), filepath.Join(dir, "p2")
	c, e := filepath.Join(p1, "c"), filepath.Join(p2, "e")
	for _, d := range []string{p1, p2, c, e} {
		mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	}
	writeFile(t, filepath.Join(c, "inside"), []byte("i"))
	cf, err := os.Open(c)
	mustDo(t, "open c", err)
	defer cf.Close()
	ef, err := os.Open(e)
	mustDo(t, "open e", err)
	defer ef.Close()
	mustDo(t, "rename p1/c onto p2/e", unix.Rename(c, e))
	if n1, n2, n := lstat(t, p1).Nlink, lstat(t, p2).Nlink, lstat(t, dir).Nlink; n1 != 2 || n2 != 3 || n != 4 {
		t.Fatalf("nlink p1 %d p2 %d parent %d, want 2 3 4", n1, n2, n)
	}
	var st unix.Stat_t
	mustDo(t, `fstatat(c, "..")`, unix.Fstatat(fd(cf), "..", &st, unix.AT_SYMLINK_NOFOLLOW))
	if st.Ino != lstat(t, p2).Ino {
		t.Fatal(`".." of the moved directory is not its new parent`)
	}
	wantContent(t, filepath.Join(e, "inside"), []byte("i"))
	mustDo(t, "fstat replaced dir", unix.Fstat(fd(ef), &st))
	if st.Nlink != 0 {
		t.Fatalf("replaced directory has nlink %d, want 0", st.Nlink)
	}
	_, err = unix.Getdents(fd(ef), make([]byte, 4096))
	wantErrno(t, "getdents of the replaced directory", err, unix.ENOENT)
	_, err = unix.Openat(fd(ef), "new", unix.O_CREAT|unix.O_WRONLY, 0o644)
	wantErrno(t, "create in the replaced directory", err, unix.ENOENT)
}
