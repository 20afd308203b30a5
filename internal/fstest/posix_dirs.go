package fstest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func testMkdirRmdir(t *testing.T, dir string) {
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o750))
	st := lstat(t, d)
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o7777 != 0o750 {
		t.Fatalf("mode %o after mkdir 0750", st.Mode)
	}
	wantErrno(t, "mkdir existing", unix.Mkdir(d, 0o755), unix.EEXIST)
	if got := names(t, d); len(got) != 0 {
		t.Fatalf("new directory lists %v", got)
	}
	mustDo(t, "rmdir", unix.Rmdir(d))
	var st2 unix.Stat_t
	wantErrno(t, "lstat after rmdir", unix.Lstat(d, &st2), unix.ENOENT)
	wantErrno(t, "rmdir missing", unix.Rmdir(d), unix.ENOENT)
}

func testRmdirErrors(t *testing.T, dir string) {
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	writeFile(t, filepath.Join(d, "f"), nil)
	wantErrno(t, "rmdir non-empty", unix.Rmdir(d), unix.ENOTEMPTY)
	wantErrno(t, "rmdir a file", unix.Rmdir(filepath.Join(d, "f")), unix.ENOTDIR)
	wantErrno(t, "unlink a directory", unix.Unlink(d), unix.EISDIR)
	wantErrno(t, "mkdir under a file", unix.Mkdir(filepath.Join(d, "f", "x"), 0o755), unix.ENOTDIR)
	wantErrno(t, "create under a missing dir", os.WriteFile(filepath.Join(dir, "nope", "f"), nil, 0o644), unix.ENOENT)
}

func testReadDir(t *testing.T, dir string) {
	mustDo(t, "mkdir", unix.Mkdir(filepath.Join(dir, "sub"), 0o755))
	writeFile(t, filepath.Join(dir, "file"), []byte("x"))
	mustDo(t, "symlink", unix.Symlink("file", filepath.Join(dir, "link")))
	mustDo(t, "mkfifo", unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	ents, err := os.ReadDir(dir)
	mustDo(t, "readdir", err)
	want := map[string]os.FileMode{"fifo": os.ModeNamedPipe, "file": 0, "link": os.ModeSymlink, "sub": os.ModeDir}
	if len(ents) != len(want) {
		t.Fatalf("readdir: %d entries, want %d", len(ents), len(want))
	}
	for _, e := range ents {
		typ, ok := want[e.Name()]
		if !ok || e.Type() != typ {
			t.Errorf("entry %q type %v, want %v (listed: %v)", e.Name(), e.Type(), typ, ok)
		}
	}
	// "." and ".." are listed by getdents itself.
	f, err := os.Open(dir)
	mustDo(t, "open dir", err)
	defer f.Close()
	buf := make([]byte, 8192)
	n, err := unix.Getdents(int(f.Fd()), buf)
	mustDo(t, "getdents", err)
	all := direntNames(buf[:n])
	if !contains(all, ".") || !contains(all, "..") {
		t.Errorf("getdents %v lacks . or ..", all)
	}
}

// direntNames decodes linux_dirent64 records (unix.ParseDirent hides "."
// and "..").
func direntNames(b []byte) []string {
	var out []string
	for len(b) >= 19 {
		reclen := int(binary.NativeEndian.Uint16(b[16:18]))
		if reclen < 19 || reclen > len(b) {
			break
		}
		name := b[19:reclen]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		out = append(out, string(name))
		b = b[reclen:]
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func testDirLinkCount(t *testing.T, dir string) {
	a := filepath.Join(dir, "a")
	mustDo(t, "mkdir a", unix.Mkdir(a, 0o755))
	base := lstat(t, dir).Nlink
	if n := lstat(t, a).Nlink; n != 2 {
		t.Fatalf("new directory nlink %d, want 2", n)
	}
	mustDo(t, "mkdir a/b", unix.Mkdir(filepath.Join(a, "b"), 0o755))
	mustDo(t, "mkdir a/c", unix.Mkdir(filepath.Join(a, "c"), 0o755))
	writeFile(t, filepath.Join(a, "f"), nil)
	if n := lstat(t, a).Nlink; n != 4 {
		t.Fatalf("directory with 2 subdirectories and a file: nlink %d, want 4", n)
	}
	mustDo(t, "rmdir a/b", unix.Rmdir(filepath.Join(a, "b")))
	if n := lstat(t, a).Nlink; n != 3 {
		t.Fatalf("after rmdir: nlink %d, want 3", n)
	}
	if n := lstat(t, dir).Nlink; n != base {
		t.Fatalf("parent nlink changed from %d to %d by grandchildren", base, n)
	}
}

// testManyEntries lists a large directory in small getdents batches, so
// that continuation offsets are exercised.
func testManyEntries(t *testing.T, dir string) {
	const n = 2000
	want := make(map[string]bool, n)
	for i := range n {
		name := fmt.Sprintf("entry-%05d-%s", i, string(rune('a'+i%26)))
		writeFile(t, filepath.Join(dir, name), nil)
		want[name] = true
	}
	f, err := os.Open(dir)
	mustDo(t, "open", err)
	defer f.Close()
	seen := make(map[string]bool, n)
	for {
		ents, err := f.ReadDir(7)
		for _, e := range ents {
			if seen[e.Name()] {
				t.Fatalf("%q listed twice", e.Name())
			}
			seen[e.Name()] = true
		}
		if err == io.EOF {
			break
		}
		mustDo(t, "readdir", err)
	}
	if len(seen) != n {
		t.Fatalf("listed %d entries, want %d", len(seen), n)
	}
	for name := range want {
		if !seen[name] {
			t.Fatalf("%q not listed", name)
		}
	}
	for name := range want {
		mustDo(t, "unlink", os.Remove(filepath.Join(dir, name)))
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("after removing all: %d entries left", len(got))
	}
}

// testUnlinkWhileListing removes entries between getdents calls: every
// entry that stays must still be listed exactly once.
func testUnlinkWhileListing(t *testing.T, dir string) {
	const n = 300
	for i := range n {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("f%03d", i)), nil)
	}
	f, err := os.Open(dir)
	mustDo(t, "open", err)
	defer f.Close()
	first, err := f.ReadDir(10)
	mustDo(t, "readdir", err)
	removed := map[string]bool{}
	for _, e := range first {
		mustDo(t, "unlink", os.Remove(filepath.Join(dir, e.Name())))
		removed[e.Name()] = true
	}
	seen := map[string]int{}
	for {
		ents, err := f.ReadDir(10)
		for _, e := range ents {
			seen[e.Name()]++
		}
		if err == io.EOF {
			break
		}
		mustDo(t, "readdir", err)
	}
	for i := range n {
		name := fmt.Sprintf("f%03d", i)
		if !removed[name] && seen[name] != 1 {
			t.Fatalf("%s listed %d times", name, seen[name])
		}
	}
}

func testNameTooLong(t *testing.T, dir string) {
	long := make([]byte, 256)
	for i := range long {
		long[i] = 'n'
	}
	_, err := os.Create(filepath.Join(dir, string(long)))
	wantErrno(t, "create with a 256-byte name", err, unix.ENAMETOOLONG)
	wantErrno(t, "mkdir with a 256-byte name", unix.Mkdir(filepath.Join(dir, string(long)), 0o755), unix.ENAMETOOLONG)
	var st unix.Stat_t
	wantErrno(t, "stat with a 256-byte name", unix.Lstat(filepath.Join(dir, string(long)), &st), unix.ENAMETOOLONG)
	name := string(long[:255])
	writeFile(t, filepath.Join(dir, name), []byte("ok"))
	if got := names(t, dir); len(got) != 1 || got[0] != name {
		t.Fatalf("255-byte name not listed: %d entries", len(got))
	}
}
