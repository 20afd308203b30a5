package device

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Op is one recorded operation of a Crash device.
type Op struct {
	Kind  OpKind // OpWrite or OpFlush
	Off   int64  // writes: where the data went
	Data  []byte // writes: a private copy of what was written; treat as read-only
	Seq   int    // the op's position in the log, equal to its index in Ops()
	Epoch int    // how many flushes were recorded before this op
}

// Crash is a Device that records every write and flush on top of a base
// device and can materialise any crash state from the record (see State and
// Image). Writes and flushes go through to the base, so reads see them.
//
// Memory: Crash holds the starting image, a copy of every byte ever written
// (RecordedBytes) and, while Image is used, one more image-sized cache. It is
// meant for test workloads of megabytes, not for long runs.
//
// Writes and flushes are serialised (the mutex is held across the base call)
// so that the recorded order is the order the base applied them in.
type Crash struct {
	base     Device
	start    []byte // the base's contents at NewCrash: the durable starting image
	startErr error  // set when that snapshot could not be read

	closed atomic.Bool

	mu       sync.Mutex
	ops      []Op
	flushIdx []int // index in ops of each flush, in order
	recorded int64 // bytes of write data held

	cacheMu      sync.Mutex
	cache        []byte // the image at flush boundary cacheFlushes, or nil
	cacheFlushes int
}

// NewCrash starts recording on top of base. The base's current contents are
// the durable starting image. If they cannot be read, the device still works
// but Image reports the error.
func NewCrash(base Device) *Crash {
	c := &Crash{base: base, start: make([]byte, max(base.Size(), 0))}
	if _, err := base.ReadAt(c.start, 0); err != nil {
		c.startErr = fmt.Errorf("crash: reading the starting image: %w", err)
	}
	return c
}

// ReadAt implements Device by reading the base.
func (c *Crash) ReadAt(p []byte, off int64) (int, error) {
	if c.closed.Load() {
		return 0, fmt.Errorf("crash read at %d: %w", off, ErrClosed)
	}
	return c.base.ReadAt(p, off)
}

// WriteAt implements Device: it writes the base and records what landed.
func (c *Crash) WriteAt(p []byte, off int64) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return 0, fmt.Errorf("crash write at %d: %w", off, ErrClosed)
	}
	n, err := c.base.WriteAt(p, off)
	if n > 0 {
		c.recordLocked(Op{Kind: OpWrite, Off: off, Data: append([]byte(nil), p[:n]...)})
		c.recorded += int64(n)
	}
	return n, err
}

// Flush implements Device: it flushes the base and records the flush only if
// that succeeded, since a failed flush promises nothing.
func (c *Crash) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return fmt.Errorf("crash flush: %w", ErrClosed)
	}
	if err := c.base.Flush(); err != nil {
		return err
	}
	c.flushIdx = append(c.flushIdx, len(c.ops))
	c.recordLocked(Op{Kind: OpFlush})
	return nil
}

// recordLocked appends op, numbering it; c.mu must be held.
func (c *Crash) recordLocked(op Op) {
	op.Seq = len(c.ops)
	op.Epoch = len(c.flushIdx)
	if op.Kind == OpFlush {
		op.Epoch-- // the flush was already counted by Flush
	}
	c.ops = append(c.ops, op)
}

// Size implements Device.
func (c *Crash) Size() int64 { return c.base.Size() }

// Close implements Device and closes the base. The record stays usable:
// Ops, Image and States still work after Close.
func (c *Crash) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Swap(true) {
		return fmt.Errorf("crash close: %w", ErrClosed)
	}
	return c.base.Close()
}

// Ops returns the recorded operations in order. The Data slices are shared
// with the recorder and must not be modified.
func (c *Crash) Ops() []Op {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Op(nil), c.ops...)
}

// Flushes is the number of flushes recorded.
func (c *Crash) Flushes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.flushIdx)
}

// RecordedBytes is how many bytes of write data the recorder holds.
func (c *Crash) RecordedBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recorded
}

// view returns the record as it is now. The record only grows by appending,
// so the returned slices (capped at their length) stay valid and unchanging
// without the lock.
func (c *Crash) view() (ops []Op, flushIdx []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ops[:len(c.ops):len(c.ops)], c.flushIdx[:len(c.flushIdx):len(c.flushIdx)]
}
