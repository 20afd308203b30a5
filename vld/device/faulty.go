package device

import (
	"fmt"
	"sync/atomic"
)

// Fault chooses which operations a Faulty device fails.
type Fault struct {
	// Op is the mask of kinds that count and can fail (OpRead, OpWrite,
	// OpFlush, or several or'ed together); 0 means OpAll.
	Op OpKind
	// After: the (After+1)-th matching operation fails (After=0: the first).
	// A negative value counts as 0.
	After int
	// Sticky: every matching operation after that one fails too.
	Sticky bool
}

// Faulty wraps a device and fails the operation a Fault chooses, with an error
// wrapping ErrInjected, without passing it to the wrapped device: a failed
// write changes nothing. Close and Size are never failed or counted. The
// errorfs-style loop is: for i := 0; ; i++ { run with Fault{Op: OpAll, After:
// i}; stop once Injected() is 0 }.
type Faulty struct {
	d     Device
	fault Fault
	seen  atomic.Int64 // matching ops so far
	fired atomic.Int64 // faults injected so far
}

// NewFaulty wraps d.
func NewFaulty(d Device, f Fault) *Faulty {
	if f.Op == 0 {
		f.Op = OpAll
	}
	f.After = max(f.After, 0)
	return &Faulty{d: d, fault: f}
}

// Count is the number of matching operations seen so far, failed ones included.
func (f *Faulty) Count() int { return int(f.seen.Load()) }

// Injected is the number of operations failed so far.
func (f *Faulty) Injected() int { return int(f.fired.Load()) }

// ReadAt implements Device.
func (f *Faulty) ReadAt(p []byte, off int64) (int, error) {
	if err := f.check(OpRead); err != nil {
		return 0, fmt.Errorf("read at %d: %w", off, err)
	}
	return f.d.ReadAt(p, off)
}

// WriteAt implements Device.
func (f *Faulty) WriteAt(p []byte, off int64) (int, error) {
	if err := f.check(OpWrite); err != nil {
		return 0, fmt.Errorf("write at %d: %w", off, err)
	}
	return f.d.WriteAt(p, off)
}

// Flush implements Device.
func (f *Faulty) Flush() error {
	if err := f.check(OpFlush); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return f.d.Flush()
}

// Size implements Device.
func (f *Faulty) Size() int64 { return f.d.Size() }

// Close implements Device; it is never failed.
func (f *Faulty) Close() error { return f.d.Close() }

// check counts an operation of kind k and decides whether it fails.
func (f *Faulty) check(k OpKind) error {
	if k&f.fault.Op == 0 {
		return nil
	}
	i := int(f.seen.Add(1)) // 1-based among matching ops
	target := f.fault.After + 1
	if i == target || (f.fault.Sticky && i > target) {
		f.fired.Add(1)
		return fmt.Errorf("%v #%d of %v: %w", k, i, f.fault.Op, ErrInjected)
	}
	return nil
}
