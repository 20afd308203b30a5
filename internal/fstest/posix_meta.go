package fstest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func testChmod(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	for _, mode := range []uint32{0o600, 0o4755, 0o2711, 0o000, 0o777} {
		mustDo(t, "chmod", unix.Chmod(p, mode))
		if got := lstat(t, p).Mode & 0o7777; got != mode {
			t.Fatalf("chmod %o: mode %o", mode, got)
		}
	}
}

// testStickyBit is separate from testChmod: bazil.org/fuse cannot return
// S_ISVTX to the kernel (see docs/fuse.md).
func testStickyBit(t *testing.T, dir string) {
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	mustDo(t, "chmod", unix.Chmod(d, 0o1777))
	if got := lstat(t, d).Mode & 0o7777; got != 0o1777 {
		t.Fatalf("chmod 1777: mode %o", got)
	}
}

func testChown(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	mustDo(t, "chmod", unix.Chmod(p, 0o6755))
	mustDo(t, "chown", unix.Chown(p, 1234, 5678))
	st := lstat(t, p)
	if st.Uid != 1234 || st.Gid != 5678 {
		t.Fatalf("owner %d:%d, want 1234:5678", st.Uid, st.Gid)
	}
	if st.Mode&0o7777 != 0o755 {
		t.Fatalf("chown left mode %o, want set-id bits cleared (0755)", st.Mode&0o7777)
	}
	mustDo(t, "chown gid only", unix.Chown(p, -1, 42))
	if st := lstat(t, p); st.Uid != 1234 || st.Gid != 42 {
		t.Fatalf("owner %d:%d, want 1234:42", st.Uid, st.Gid)
	}
	l := filepath.Join(dir, "l")
	mustDo(t, "symlink", unix.Symlink("f", l))
	mustDo(t, "lchown", unix.Lchown(l, 77, 88))
	if st := lstat(t, l); st.Uid != 77 || st.Gid != 88 {
		t.Fatalf("symlink owner %d:%d", st.Uid, st.Gid)
	}
}

func testSetgidDirectory(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		t.Skip("chown to another group needs root")
	}
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	mustDo(t, "chown", unix.Chown(d, 0, 4321))
	mustDo(t, "chmod", unix.Chmod(d, 0o2775))
	writeFile(t, filepath.Join(d, "f"), nil)
	mustDo(t, "mkdir sub", unix.Mkdir(filepath.Join(d, "sub"), 0o755))
	if st := lstat(t, filepath.Join(d, "f")); st.Gid != 4321 {
		t.Fatalf("file in set-gid dir: gid %d, want 4321", st.Gid)
	}
	st := lstat(t, filepath.Join(d, "sub"))
	if st.Gid != 4321 || st.Mode&unix.S_ISGID == 0 {
		t.Fatalf("subdir of set-gid dir: gid %d mode %o, want 4321 and set-gid", st.Gid, st.Mode)
	}
}

func testUtimens(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	at := unix.Timespec{Sec: 1500000000, Nsec: 123456789}
	mt := unix.Timespec{Sec: 1600000000, Nsec: 987654321}
	mustDo(t, "utimensat", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{at, mt}, 0))
	st := lstat(t, p)
	if st.Atim != at || st.Mtim != mt {
		t.Fatalf("times %v %v, want %v %v", st.Atim, st.Mtim, at, mt)
	}
	omit := unix.Timespec{Nsec: unix.UTIME_OMIT}
	now := unix.Timespec{Nsec: unix.UTIME_NOW}
	mustDo(t, "utimensat omit/now", unix.UtimesNanoAt(unix.AT_FDCWD, p, []unix.Timespec{omit, now}, 0))
	st = lstat(t, p)
	if st.Atim != at {
		t.Fatalf("UTIME_OMIT changed atime to %v", st.Atim)
	}
	if d := time.Since(time.Unix(st.Mtim.Unix())); d < -time.Minute || d > time.Minute {
		t.Fatalf("UTIME_NOW set mtime %v away from now", d)
	}
	l := filepath.Join(dir, "l")
	mustDo(t, "symlink", unix.Symlink("f", l))
	mustDo(t, "lutimes", unix.UtimesNanoAt(unix.AT_FDCWD, l, []unix.Timespec{at, at}, unix.AT_SYMLINK_NOFOLLOW))
	if st := lstat(t, l); st.Mtim != at {
		t.Fatalf("symlink mtime %v, want %v", st.Mtim, at)
	}
}

func testXattr(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	mustDo(t, "setxattr", unix.Setxattr(p, "user.one", []byte("1"), 0))
	mustDo(t, "setxattr", unix.Setxattr(p, "user.two", []byte("second value"), 0))
	mustDo(t, "setxattr empty", unix.Setxattr(p, "user.empty", nil, 0))
	wantErrno(t, "XATTR_CREATE on existing", unix.Setxattr(p, "user.one", []byte("x"), unix.XATTR_CREATE), unix.EEXIST)
	wantErrno(t, "XATTR_REPLACE on missing", unix.Setxattr(p, "user.none", []byte("x"), unix.XATTR_REPLACE), unix.ENODATA)
	mustDo(t, "XATTR_REPLACE", unix.Setxattr(p, "user.one", []byte("uno"), unix.XATTR_REPLACE))
	buf := make([]byte, 100)
	n, err := unix.Getxattr(p, "user.one", buf)
	mustDo(t, "getxattr", err)
	if string(buf[:n]) != "uno" {
		t.Fatalf("getxattr user.one = %q", buf[:n])
	}
	if got := listXattr(t, p); !equalStrings(got, []string{"user.empty", "user.one", "user.two"}) {
		t.Fatalf("listxattr %v", got)
	}
	mustDo(t, "removexattr", unix.Removexattr(p, "user.two"))
	_, err = unix.Getxattr(p, "user.two", buf)
	wantErrno(t, "getxattr removed", err, unix.ENODATA)
	wantErrno(t, "removexattr missing", unix.Removexattr(p, "user.two"), unix.ENODATA)
	d := filepath.Join(dir, "d")
	mustDo(t, "mkdir", unix.Mkdir(d, 0o755))
	mustDo(t, "setxattr on a directory", unix.Setxattr(d, "user.dir", []byte("yes"), 0))
	if got := listXattr(t, d); !equalStrings(got, []string{"user.dir"}) {
		t.Fatalf("directory listxattr %v", got)
	}
}

func listXattr(t *testing.T, p string) []string {
	t.Helper()
	buf := make([]byte, 4096)
	n, err := unix.Listxattr(p, buf)
	mustDo(t, "listxattr", err)
	var out []string
	for _, s := range strings.Split(string(buf[:n]), "\x00") {
		if s != "" && strings.HasPrefix(s, "user.") { // the oracle may hold security.*
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func testXattrSizes(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	val := pattern(3000, 9)
	mustDo(t, "setxattr 3000 bytes", unix.Setxattr(p, "user.big", val, 0))
	n, err := unix.Getxattr(p, "user.big", nil)
	mustDo(t, "getxattr size probe", err)
	if n != len(val) {
		t.Fatalf("size probe %d, want %d", n, len(val))
	}
	_, err = unix.Getxattr(p, "user.big", make([]byte, 10))
	wantErrno(t, "getxattr into a small buffer", err, unix.ERANGE)
	buf := make([]byte, 4000)
	n, err = unix.Getxattr(p, "user.big", buf)
	mustDo(t, "getxattr", err)
	if string(buf[:n]) != string(val) {
		t.Fatal("big xattr value differs")
	}
	n, err = unix.Listxattr(p, nil)
	mustDo(t, "listxattr size probe", err)
	if n < len("user.big")+1 {
		t.Fatalf("listxattr size probe %d", n)
	}
	_, err = unix.Listxattr(p, make([]byte, 3))
	wantErrno(t, "listxattr into a small buffer", err, unix.ERANGE)
	long := "user." + strings.Repeat("n", 256)
	wantErrno(t, "xattr name over 255 bytes", unix.Setxattr(p, long, []byte("x"), 0), unix.ERANGE)
}
