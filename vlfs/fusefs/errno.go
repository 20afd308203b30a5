package fusefs

import (
	"errors"
	"syscall"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs"
)

// errnoOf is the one table turning vlfs sentinels into errnos. Order
// matters only if an error wraps two sentinels; the more specific comes
// first.
var errnoOf = fuseserve.ErrnoTable{
	{vlfs.ErrNotExist, syscall.ENOENT},
	{vlfs.ErrExist, syscall.EEXIST},
	{vlfs.ErrNotDir, syscall.ENOTDIR},
	{vlfs.ErrIsDir, syscall.EISDIR},
	{vlfs.ErrNotEmpty, syscall.ENOTEMPTY},
	{vlfs.ErrNameTooLong, syscall.ENAMETOOLONG},
	{vlfs.ErrNoSpace, syscall.ENOSPC},
	{vlfs.ErrInvalid, syscall.EINVAL},
	{vlfs.ErrNoXattr, syscall.ENODATA},
	{vlfs.ErrXattrRange, syscall.ERANGE},
	{vlfs.ErrFileTooBig, syscall.EFBIG},
	{vlfs.ErrNotSupported, syscall.EOPNOTSUPP},
	{vlfs.ErrReadOnly, syscall.EROFS},
	{vlfs.ErrPerm, syscall.EPERM},
	{vlfs.ErrNoOffset, syscall.ENXIO},
	{vlfs.ErrCorrupt, syscall.EIO},
	{vlfs.ErrNeedsRepair, syscall.EIO},
	// In case the core lets a volume error through unwrapped.
	{vld.ErrNoSpace, syscall.ENOSPC},
	{vld.ErrReadOnly, syscall.EROFS},
}

// errno is the server's fuseserve.Core.Errno: a syscall.Errno is answered
// as it is, a vlfs error through errnoOf; the faults logged (shouldLog)
// name the repair of a damaged image.
func (s *Server) errno(err error) (errno syscall.Errno, fault bool, note string) {
	errno, known := errnoOf.Errno(err)
	if !shouldLog(err, known) {
		return errno, false, ""
	}
	return errno, true, repairHint(err, s.opt.Image)
}

// shouldLog reports whether an error answered to the kernel is a fault of
// the file system rather than of the caller.
func shouldLog(err error, known bool) bool {
	return !known || errors.Is(err, vlfs.ErrCorrupt) || errors.Is(err, vlfs.ErrNeedsRepair)
}

// repairHint is what a fault's log line adds when the image itself is
// damaged: the mount stays up and answers EIO for what it cannot read,
// but only an offline fsck repairs it (mount checks the superblock,
// checkpoint, log, root inode and orphans, not every block).
func repairHint(err error, image string) string {
	if !errors.Is(err, vlfs.ErrCorrupt) && !errors.Is(err, vlfs.ErrNeedsRepair) {
		return ""
	}
	if image == "" {
		image = "IMAGE"
	}
	return "; the image is damaged: unmount it, then run vlfs fsck --repair " + image
}
