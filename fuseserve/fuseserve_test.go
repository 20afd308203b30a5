package fuseserve

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"bazil.org/fuse"
)

var errGone = errors.New("gone")

func TestErrnoTable(t *testing.T) {
	table := ErrnoTable{{errGone, syscall.ENOENT}}
	tests := []struct {
		err   error
		want  syscall.Errno
		known bool
	}{
		{errGone, syscall.ENOENT, true},
		{fmt.Errorf("lookup x: %w", errGone), syscall.ENOENT, true},
		{fmt.Errorf("raised: %w", syscall.EBADF), syscall.EBADF, true},
		{errors.New("something else"), syscall.EIO, false},
	}
	for _, tc := range tests {
		if got, known := table.Errno(tc.err); got != tc.want || known != tc.known {
			t.Errorf("%v: %v %v, want %v %v", tc.err, got, known, tc.want, tc.known)
		}
	}
}

func TestReadEnded(t *testing.T) {
	var logged []string
	c := &Core{Name: "test", Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
	for _, err := range []error{io.EOF, syscall.EBADF, os.ErrClosed, syscall.ENODEV} {
		if !c.readEnded(err, 1) {
			t.Errorf("%v does not end the connection", err)
		}
	}
	for _, err := range []error{syscall.EINTR, syscall.EAGAIN} {
		if c.readEnded(err, maxReadErrors) {
			t.Errorf("%v ends the connection", err)
		}
	}
	if len(logged) != 0 {
		t.Errorf("logged %q", logged)
	}
	bad := errors.New("fuse: message too short")
	if c.readEnded(bad, maxReadErrors-1) || !c.readEnded(bad, maxReadErrors) {
		t.Errorf("a bad message ends the connection at once, or never")
	}
	if len(logged) != 2 || !strings.HasPrefix(logged[0], "test: reading a request: ") {
		t.Errorf("logged %q", logged)
	}
}

// TestSafely: a handler's panic is logged, with the request, and becomes
// ErrPanic; an error passes through.
func TestSafely(t *testing.T) {
	var logged []string
	c := &Core{Name: "test", Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
	c.Handle = func(fuse.Request) error { panic("boom") }
	if err := c.safely(&fuse.StatfsRequest{}); err != ErrPanic {
		t.Errorf("panic answered %v, want %v", err, ErrPanic)
	}
	if len(logged) != 1 || !strings.HasPrefix(logged[0], "test: panic answering ") || !strings.Contains(logged[0], "boom") {
		t.Errorf("logged %q", logged)
	}
	c.Handle = func(fuse.Request) error { return errGone }
	if err := c.safely(&fuse.StatfsRequest{}); err != errGone {
		t.Errorf("error %v, want %v", err, errGone)
	}
}

func TestSnapshot(t *testing.T) {
	if got := string(Snapshot(map[string]int{"a": 1})); got != "{\n  \"a\": 1\n}\n" {
		t.Errorf("Snapshot: %q", got)
	}
	if got := string(Snapshot(func() {})); got != "{}\n" {
		t.Errorf("Snapshot of what JSON cannot hold: %q", got)
	}
}

func TestOptionsDefaults(t *testing.T) {
	o := Options{}.WithDefaults("srv")
	if o.Readers != DefaultReaders || o.FSName != "srv" || o.Logf == nil {
		t.Errorf("defaults: %+v", o)
	}
	if o := (Options{Readers: 2, FSName: "x"}).WithDefaults("srv"); o.Readers != 2 || o.FSName != "x" {
		t.Errorf("set fields overwritten: %+v", o)
	}
	if n, m := len(Options{}.MountOptions("s", "t", 1<<20)), len(Options{AllowOther: true}.MountOptions("s", "t", 1<<20)); m != n+1 {
		t.Errorf("AllowOther adds %d mount options, want 1", m-n)
	}
}

// TestUnmountNotMounted: a directory that is not a mount point gives the
// server's NotMounted sentinel, and an abort without a connection id too.
func TestUnmountNotMounted(t *testing.T) {
	u := Unmounter{Busy: errors.New("busy"), NotMounted: errors.New("not mounted")}
	if err := u.Abort("/x", ""); !errors.Is(err, u.NotMounted) {
		t.Errorf("Abort without a connection id: %v", err)
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		t.Skipf("needs fusermount3: %v", err)
	}
	if err := u.Unmount(t.TempDir(), false); !errors.Is(err, u.NotMounted) {
		t.Errorf("Unmount of a plain directory: %v", err)
	}
}

// TestAnswerStateless: GETXATTR finds no attribute (answered by Answer, as
// a handler's error would be), and what is not its own is left to the
// server. (The others answer at once, which needs a connection: the
// servers' mount tests cover them.)
func TestAnswerStateless(t *testing.T) {
	if answered, err := AnswerStateless(&fuse.GetxattrRequest{}); !answered || err != syscall.ENODATA {
		t.Errorf("getxattr: %v %v, want true ENODATA", answered, err)
	}
	for _, req := range []fuse.Request{&fuse.StatfsRequest{}, &fuse.FsyncRequest{}, &fuse.CreateRequest{}} {
		if answered, err := AnswerStateless(req); answered || err != nil {
			t.Errorf("%T: %v %v, want false nil", req, answered, err)
		}
	}
}
