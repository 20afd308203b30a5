package fusefs

import (
	"sync/atomic"
	"time"
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
// writeback, release) count for nobody. What can overlap anyway is served
// one at a time until another thread shows up: the READs of one thread's
// read-ahead or asynchronous direct I/O, served from the image's page cache
// (measured: sequential reads as fast as with more readers, random reads
// faster), and the first request of a thread that appears while the only
// reader waits, read once that wait ends (one device flush at most); that
// thread turns concurrency on for window (Options.ConcurrencyWindow).
type clients struct {
	window  time.Duration
	last    atomic.Uint32 // thread ID of the last request with one
	changed atomic.Int64  // when it last changed (UnixNano)
}

// saw records a request's caller thread, at now.
func (c *clients) saw(pid uint32, now time.Time) {
	if pid == 0 || c.last.Load() == pid {
		return
	}
	c.last.Store(pid)
	c.changed.Store(now.UnixNano())
}

// concurrent reports whether a request may arrive while a handler waits.
func (c *clients) concurrent() bool {
	return time.Now().UnixNano()-c.changed.Load() < int64(c.window)
}
