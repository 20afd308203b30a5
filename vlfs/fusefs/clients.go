package fusefs

import (
	"sync/atomic"
	"time"
)

// concurrencyWindow is how long after a request from a second client thread
// the server still expects requests to overlap.
const concurrencyWindow = 10 * time.Millisecond

// clients tells whether requests may arrive while a handler waits, so that
// the pool need start another reader only then (pool.willWait).
//
// A request carries the thread ID of its caller, and a thread that made a
// synchronous request is blocked until it is answered. So while every
// request comes from one thread, nothing arrives while its request is
// handled, and a second reader would only cost the wake of another thread
// (tens of microseconds per request on a virtual machine: docs/fuse.md,
// "Readers"). Two exceptions need readers at once whatever the threads:
// READs, which the kernel sends several at a time for read-ahead and
// asynchronous direct I/O; and requests the kernel makes on its own behalf
// (thread ID 0: writeback, release), which no client waits for and which
// are counted as nobody's. A client thread that appears while the only
// reader waits is read once that wait ends (one device flush at most), and
// turns concurrency on for concurrencyWindow.
type clients struct {
	last    atomic.Uint32 // thread ID of the last request with one
	changed atomic.Int64  // when it last changed (UnixNano)
	reads   atomic.Int32  // READs being handled
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
	if c.reads.Load() > 0 {
		return true
	}
	return time.Now().UnixNano()-c.changed.Load() < int64(concurrencyWindow)
}
