package device

import "sync/atomic"

// WaitNotifier is a Device whose requests can wait on the host (a file's
// pread, pwrite and above all fdatasync), and which calls a hook before
// each one. A FUSE server that answers requests on as few threads as it can
// uses the hook to start another reader before one of its threads waits, so
// that requests arriving meanwhile are still read (vlfs/fusefs/pool.go).
type WaitNotifier interface {
	// SetWaitHook makes every later request call f first; nil removes it.
	// f must be cheap and must not call the device.
	SetWaitHook(f func())
}

var _ WaitNotifier = (*File)(nil)

// waitHook holds a File's hook; the zero value has none.
type waitHook struct{ f atomic.Pointer[func()] }

func (h *waitHook) set(f func()) {
	if f == nil {
		h.f.Store(nil)
		return
	}
	h.f.Store(&f)
}

// call runs the hook, if any.
func (h *waitHook) call() {
	if f := h.f.Load(); f != nil {
		(*f)()
	}
}

// SetWaitHook implements WaitNotifier.
func (d *File) SetWaitHook(f func()) { d.hook.set(f) }
