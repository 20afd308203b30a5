package fstest

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// testXattrSymlink: the xattr calls follow a symlink to its target; the
// l* calls act on the link itself, where Linux allows no user.* attribute
// (reading one gives ENODATA, setting or removing one EPERM).
func testXattrSymlink(t *testing.T, dir string) {
	f, l := filepath.Join(dir, "f"), filepath.Join(dir, "l")
	writeFile(t, f, nil)
	mustDo(t, "symlink", unix.Symlink("f", l))
	mustDo(t, "setxattr through the link", unix.Setxattr(l, "user.a", []byte("via link"), 0))
	buf := make([]byte, 64)
	n, err := unix.Getxattr(f, "user.a", buf)
	if err != nil || string(buf[:n]) != "via link" {
		t.Fatalf("target's user.a: %q, %v", buf[:n], err)
	}
	_, err = unix.Lgetxattr(l, "user.a", buf)
	wantErrno(t, "lgetxattr user.* on the link", err, unix.ENODATA)
	wantErrno(t, "lsetxattr user.* on the link", unix.Lsetxattr(l, "user.b", []byte("x"), 0), unix.EPERM)
	wantErrno(t, "lremovexattr user.* on the link", unix.Lremovexattr(l, "user.a"), unix.EPERM)
	n, err = unix.Llistxattr(l, buf)
	mustDo(t, "llistxattr", err)
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if strings.HasPrefix(name, "user.") {
			t.Fatalf("llistxattr of the link lists %q", name)
		}
	}
	mustDo(t, "removexattr through the link", unix.Removexattr(l, "user.a"))
	_, err = unix.Getxattr(f, "user.a", buf)
	wantErrno(t, "target's user.a after removal through the link", err, unix.ENODATA)
}
