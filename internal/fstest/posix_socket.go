package fstest

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// testUnixSocket binds a unix socket in the directory, as servers do:
// clients connect through the name; the name stays a socket after the
// listener closes, refusing connections, and can be unlinked and bound
// again.
func testUnixSocket(t *testing.T, dir string) {
	d, err := os.Open(dir)
	mustDo(t, "open dir", err)
	defer d.Close()
	// sun_path holds 108 bytes; the directory's own path may be longer.
	addr := fmt.Sprintf("/proc/self/fd/%d/sock", d.Fd())
	l, err := net.Listen("unix", addr)
	mustDo(t, "bind and listen", err)
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	if m := lstat(t, filepath.Join(dir, "sock")).Mode; m&unix.S_IFMT != unix.S_IFSOCK {
		t.Fatalf("bound name has mode %o, want a socket", m)
	}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return // the client's read fails and says so
		}
		defer c.Close()
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err == nil {
			c.Write(buf) // an echo: the client checks what comes back
		}
	}()
	c, err := net.Dial("unix", addr)
	mustDo(t, "connect", err)
	_, err = c.Write([]byte("ping"))
	mustDo(t, "send", err)
	buf := make([]byte, 4)
	_, err = io.ReadFull(c, buf)
	if err != nil || string(buf) != "ping" {
		t.Fatalf("echo %q, %v", buf, err)
	}
	c.Close()
	mustDo(t, "close listener", l.Close())
	_, err = net.Dial("unix", addr)
	wantErrno(t, "connect with no listener", err, unix.ECONNREFUSED)
	_, err = net.Listen("unix", addr)
	wantErrno(t, "bind over an existing name", err, unix.EADDRINUSE)
	mustDo(t, "unlink", os.Remove(filepath.Join(dir, "sock")))
	l, err = net.Listen("unix", addr)
	mustDo(t, "bind again", err)
	mustDo(t, "close", l.Close()) // unlinks the name
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("directory holds %v after the listener unlinked its name", got)
	}
}
