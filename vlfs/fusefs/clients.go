package fusefs

import (
	"sync/atomic"
	"syscall"
	"time"

	"bazil.org/fuse"
)

// clients tells whether requests may arrive while a handler waits, so that
// the pool keeps more than one reader only then (pool).
//
// A request carries the thread ID of its caller, and a thread that made a
// synchronous request is blocked until it is answered. So while every
// request comes from one thread, nothing of its own arrives while one is
// handled, and a second reader would only cost the wake of another thread
// (tens of microseconds per request on a virtual machine: docs/fuse.md,
// "Readers"). Requests the kernel makes on its own behalf (thread ID 0:
// writeback, release) count for nobody; a thread ID of 0 on any other
// request (a caller outside the mount's PID namespace) and a READ or WRITE
// of an O_DIRECT file (asynchronous direct I/O) count as a second thread.
// What can still overlap is served one at a time until another thread shows
// up: the READs of one thread's read-ahead, served from the image's page
// cache (measured: sequential reads as fast as with more readers, random
// reads faster), and the first request of a thread that appears while the
// only reader is busy, read once that request is done (an fsync's commit,
// or two if it first waits for one already running); that thread turns
// concurrency on for window (Options.ConcurrencyWindow). A request the
// kernel sends from one of its own threads with that thread's ID (a
// kworker writing back an inode's times) counts as a second thread too:
// rare, and it costs only a window of the old pool.
type clients struct {
	window  time.Duration
	last    atomic.Uint32 // thread ID of the last request with one
	changed atomic.Int64  // when it last changed (UnixNano)
}

// saw records a request's caller thread, at now. A request that may
// overlap others of its own thread, or whose thread is unknown, counts as
// a second thread.
func (c *clients) saw(req fuse.Request, now time.Time) {
	pid := req.Hdr().Pid
	switch {
	case asyncDirect(req):
	case pid == 0 && kernelOwn(req):
		return
	case pid == 0:
		// Not the kernel's own: a caller outside the mount's PID
		// namespace (a container), whose threads cannot be told apart.
	case c.last.Load() == pid:
		return
	default:
		c.last.Store(pid)
	}
	c.changed.Store(now.UnixNano())
}

// asyncDirect says whether req is a READ or WRITE of a file opened with
// O_DIRECT, which one thread can have several of in flight (asynchronous
// direct I/O: libaio, io_uring, or one large read split by the kernel).
func asyncDirect(req fuse.Request) bool {
	const direct = fuse.OpenFlags(syscall.O_DIRECT)
	switch r := req.(type) {
	case *fuse.ReadRequest:
		return !r.Dir && r.FileFlags&direct != 0
	case *fuse.WriteRequest:
		return r.FileFlags&direct != 0
	}
	return false
}

// kernelOwn says whether req is one the kernel sends on its own behalf,
// with thread ID 0, which no client thread waits for: writeback, the last
// close's RELEASE, FORGET, INTERRUPT.
func kernelOwn(req fuse.Request) bool {
	switch r := req.(type) {
	case *fuse.WriteRequest:
		return r.Flags&fuse.WriteCache != 0
	case *fuse.ReleaseRequest, *fuse.ForgetRequest, *fuse.BatchForgetRequest, *fuse.InterruptRequest:
		return true
	}
	return false
}

// concurrent reports whether, at now, a request may arrive while a handler
// waits.
func (c *clients) concurrent(now time.Time) bool {
	return now.UnixNano()-c.changed.Load() < int64(c.window)
}
