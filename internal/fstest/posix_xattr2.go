package fstest

import (
	"bytes"
	"errors"
	"os"
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
		t.Fatalf("target's user.a: %q, %v", buf[:max(n, 0)], err)
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

// testXattrNamespaces: Linux file systems keep attributes only in the
// namespaces they know: any other name is EOPNOTSUPP and a bare known
// prefix EINVAL, for set, get and remove alike. (FUSE passes every name
// to the server, which must refuse them itself.)
func testXattrNamespaces(t *testing.T, dir string) {
	p := filepath.Join(dir, "f")
	writeFile(t, p, nil)
	buf := make([]byte, 64)
	for _, c := range []struct {
		name string
		want unix.Errno
	}{
		{"foo.bar", unix.EOPNOTSUPP}, {"user", unix.EOPNOTSUPP}, {"system.vlfs", unix.EOPNOTSUPP}, {"user.", unix.EINVAL},
	} {
		wantErrno(t, "setxattr "+c.name, unix.Setxattr(p, c.name, []byte("v"), 0), c.want)
		_, err := unix.Getxattr(p, c.name, buf)
		wantErrno(t, "getxattr "+c.name, err, c.want)
		wantErrno(t, "removexattr "+c.name, unix.Removexattr(p, c.name), c.want)
	}
	n, err := unix.Listxattr(p, buf)
	mustDo(t, "listxattr", err)
	for _, name := range strings.Split(string(buf[:n]), "\x00") {
		if name != "" && !strings.HasPrefix(name, "security.") { // the oracle may hold security.selinux
			t.Fatalf("listxattr lists %q", name)
		}
	}
}

// testXattrCapability: a file capability (setcap's security.capability)
// is either kept as Linux file systems keep it (read back, listed, and
// dropped by a write to the file) or refused with EOPNOTSUPP and then
// neither read back nor listed. vlfs refuses it: under
// FUSE_HANDLE_KILLPRIV_V2 the server would have to drop it on every write
// itself (vlfs/fusefs/killpriv.go).
func testXattrCapability(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		t.Skip("setting security.capability needs CAP_SETFCAP")
	}
	const name = "security.capability"
	p := filepath.Join(dir, "f")
	writeFile(t, p, []byte("#!/bin/sh\n"))
	// VFS_CAP_REVISION_2 with the effective flag; permitted CAP_NET_BIND_SERVICE.
	v := []byte{1, 0, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	buf := make([]byte, 64)
	err := unix.Setxattr(p, name, v, 0)
	if errors.Is(err, unix.EOPNOTSUPP) {
		_, err = unix.Getxattr(p, name, buf)
		wantErrno(t, "getxattr of a refused capability", err, unix.ENODATA)
		if listsXattr(t, p, name) {
			t.Fatal("a refused capability is listed")
		}
		return
	}
	mustDo(t, "setxattr "+name, err)
	n, err := unix.Getxattr(p, name, buf)
	if err != nil || !bytes.Equal(buf[:n], v) || !listsXattr(t, p, name) {
		t.Fatalf("capability read back as %x (%v), listed %v", buf[:max(n, 0)], err, listsXattr(t, p, name))
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	mustDo(t, "open", err)
	_, err = f.Write([]byte("exit 0\n"))
	mustDo(t, "write", err)
	mustDo(t, "close", f.Close())
	_, err = unix.Getxattr(p, name, buf)
	wantErrno(t, "getxattr of the capability after a write", err, unix.ENODATA)
	if listsXattr(t, p, name) {
		t.Fatal("the capability is still listed after a write")
	}
}

func listsXattr(t *testing.T, p, name string) bool {
	t.Helper()
	buf := make([]byte, 4096)
	n, err := unix.Listxattr(p, buf)
	mustDo(t, "listxattr", err)
	return contains(strings.Split(string(buf[:n]), "\x00"), name)
}
