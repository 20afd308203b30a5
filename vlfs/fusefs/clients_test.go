package fusefs

import (
	"syscall"
	"testing"
	"time"

	"bazil.org/fuse"
)

// TestClientsConcurrent checks when a waiting handler needs another reader:
// never while one client thread makes every request (with the kernel's own
// requests, thread 0, between them), at once when a second thread appears,
// or a request of an unknown thread, or asynchronous direct I/O, and no
// longer once the window has passed.
func TestClientsConcurrent(t *testing.T) {
	const direct = fuse.OpenFlags(syscall.O_DIRECT)
	hdr := func(pid uint32) fuse.Header { return fuse.Header{Pid: pid} }
	long := time.Now().Add(-time.Hour)
	steps := []struct {
		name string
		req  fuse.Request
		at   time.Time
		want bool
	}{
		{"thread 100, long ago", &fuse.GetattrRequest{Header: hdr(100)}, long, false},
		{"thread 100 again, now", &fuse.FsyncRequest{Header: hdr(100)}, time.Now(), false},
		{"writeback WRITE", &fuse.WriteRequest{Header: hdr(0), Flags: fuse.WriteCache}, time.Now(), false},
		{"RELEASE", &fuse.ReleaseRequest{Header: hdr(0)}, time.Now(), false},
		{"FORGET", &fuse.ForgetRequest{Header: hdr(0)}, time.Now(), false},
		{"thread 100 reads", &fuse.ReadRequest{Header: hdr(100)}, time.Now(), false},
		{"thread 101", &fuse.LookupRequest{Header: hdr(101)}, time.Now(), true},
		{"thread 101 again, the window passed", &fuse.LookupRequest{Header: hdr(101)}, long, true},
		{"thread 100, the window passed", &fuse.GetattrRequest{Header: hdr(100)}, long, false},
		{"an unknown thread (0) looks up", &fuse.LookupRequest{Header: hdr(0)}, time.Now(), true},
		{"thread 101, long ago", &fuse.GetattrRequest{Header: hdr(101)}, long, false},
		{"a direct READ of thread 101", &fuse.ReadRequest{Header: hdr(101), FileFlags: direct}, time.Now(), true},
		{"thread 100, long ago", &fuse.GetattrRequest{Header: hdr(100)}, long, false},
		{"a direct WRITE of thread 100", &fuse.WriteRequest{Header: hdr(100), FileFlags: direct}, time.Now(), true},
	}
	c := clients{window: time.Second}
	for _, s := range steps {
		c.saw(s.req, s.at)
		if got := c.concurrent(time.Now()); got != s.want {
			t.Fatalf("%s: concurrent %v, want %v", s.name, got, s.want)
		}
	}
}
