package fuseserve

import (
	"errors"
	"syscall"
)

// ErrnoTable turns a server's errors into errnos: each entry answers the
// errors that wrap Err with Errno. Order matters only when an error wraps
// two sentinels; the more specific comes first.
type ErrnoTable []struct {
	Err   error
	Errno syscall.Errno
}

// Errno maps err to an errno. A syscall.Errno (raised by a handler itself)
// is answered as it is; known is false for errors neither an Errno nor in
// the table: they become EIO and deserve a log line.
func (t ErrnoTable) Errno(err error) (errno syscall.Errno, known bool) {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e, true
	}
	for _, m := range t {
		if errors.Is(err, m.Err) {
			return m.Errno, true
		}
	}
	return syscall.EIO, false
}
