package fstest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testTmpfile: open(2) with O_TMPFILE makes a file with no name in the
// directory. It reads and writes as any file, is not listed, and
// linkat(2) through /proc/self/fd gives it a name and its content; one
// made with O_EXCL can never be named (ENOENT). A file system may refuse
// O_TMPFILE with EOPNOTSUPP (FUSE does without FUSE_TMPFILE), and must
// then leave nothing behind; vlfs must not (TestTmpfileOverFUSE).
func testTmpfile(t *testing.T, dir string) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR, 0o640)
	if errors.Is(err, unix.EOPNOTSUPP) {
		t.Logf("O_TMPFILE: %v", err)
		wantNames(t, dir)
		return
	}
	mustDo(t, "open O_TMPFILE", err)
	defer unix.Close(fd)
	data := pattern(10000, 3)
	_, err = unix.Pwrite(fd, data, 0)
	mustDo(t, "pwrite", err)
	wantNames(t, dir)
	var st unix.Stat_t
	mustDo(t, "fstat", unix.Fstat(fd, &st))
	if st.Nlink != 0 || st.Size != int64(len(data)) || st.Mode != unix.S_IFREG|0o640 {
		t.Fatalf("unnamed file: nlink %d, size %d, mode %#o; want 0, %d, %#o", st.Nlink, st.Size, st.Mode, len(data), unix.S_IFREG|0o640)
	}
	p := filepath.Join(dir, "named")
	mustDo(t, "linkat", unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", fd), unix.AT_FDCWD, p, unix.AT_SYMLINK_FOLLOW))
	wantNames(t, dir, "named")
	mustDo(t, "fstat after linkat", unix.Fstat(fd, &st))
	if st.Nlink != 1 {
		t.Fatalf("nlink %d after linkat, want 1", st.Nlink)
	}
	wantContent(t, p, data)
	_, err = unix.Pwrite(fd, []byte("after"), 0)
	mustDo(t, "pwrite after linkat", err)
	if got := readFile(t, p); !bytes.HasPrefix(got, []byte("after")) {
		t.Fatalf("a write through the descriptor after linkat does not show in the file: %q", head(got))
	}

	excl, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_EXCL, 0o600)
	mustDo(t, "open O_TMPFILE|O_EXCL", err)
	defer unix.Close(excl)
	err = unix.Linkat(unix.AT_FDCWD, fmt.Sprintf("/proc/self/fd/%d", excl), unix.AT_FDCWD, filepath.Join(dir, "never"), unix.AT_SYMLINK_FOLLOW)
	wantErrno(t, "linkat of an O_EXCL temporary file", err, unix.ENOENT)
	wantNames(t, dir, "named")
}

// wantNames fails unless dir lists exactly names, in order.
func wantNames(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	mustDo(t, "readdir", err)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Fatalf("%s lists %v, want %v", filepath.Base(dir), got, names)
	}
}
