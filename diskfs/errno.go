package diskfs

import (
	"syscall"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/vld"
)

// errnoOf is the one table turning disk errors into errnos; the more
// specific entry comes first. A syscall.Errno raised by this package
// itself is answered as it is.
var errnoOf = fuseserve.ErrnoTable{
	{ErrOutOfRange, syscall.EFBIG},
	{vld.ErrNoSpace, syscall.ENOSPC},
	{vld.ErrReadOnly, syscall.EROFS},
	{vld.ErrInvalid, syscall.EINVAL},
}
