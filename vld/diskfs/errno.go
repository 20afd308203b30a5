package diskfs

import (
	"errors"
	"syscall"

	"github.com/vlfs/vlfs/vld"
)

// errnoOf is the one table turning disk errors into errnos; the more
// specific entry comes first.
var errnoOf = []struct {
	err   error
	errno syscall.Errno
}{
	{ErrOutOfRange, syscall.EFBIG},
	{vld.ErrNoSpace, syscall.ENOSPC},
	{vld.ErrReadOnly, syscall.EROFS},
	{vld.ErrInvalid, syscall.EINVAL},
}

// toErrno maps err to an errno; known is false for errors outside the table
// (they become EIO and deserve a log line).
func toErrno(err error) (errno syscall.Errno, known bool) {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e, true // raised by this package itself
	}
	for _, m := range errnoOf {
		if errors.Is(err, m.err) {
			return m.errno, true
		}
	}
	return syscall.EIO, false
}
