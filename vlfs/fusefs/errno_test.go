package fusefs

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/vlfs/vlfs/vlfs"
)

func TestErrnoOf(t *testing.T) {
	tests := []struct {
		err     error
		want    syscall.Errno
		known   bool
		logThis bool
	}{
		{vlfs.ErrNotExist, syscall.ENOENT, true, false},
		{fmt.Errorf("lookup %q: %w", "x", vlfs.ErrExist), syscall.EEXIST, true, false},
		{vlfs.ErrNotDir, syscall.ENOTDIR, true, false},
		{vlfs.ErrIsDir, syscall.EISDIR, true, false},
		{vlfs.ErrNotEmpty, syscall.ENOTEMPTY, true, false},
		{vlfs.ErrNameTooLong, syscall.ENAMETOOLONG, true, false},
		{vlfs.ErrNoSpace, syscall.ENOSPC, true, false},
		{vlfs.ErrInvalid, syscall.EINVAL, true, false},
		{vlfs.ErrNoXattr, syscall.ENODATA, true, false},
		{vlfs.ErrXattrRange, syscall.ERANGE, true, false},
		{vlfs.ErrFileTooBig, syscall.EFBIG, true, false},
		{vlfs.ErrNotSupported, syscall.EOPNOTSUPP, true, false},
		{vlfs.ErrReadOnly, syscall.EROFS, true, false},
		{vlfs.ErrPerm, syscall.EPERM, true, false},
		{fmt.Errorf("inode 7: %w", vlfs.ErrCorrupt), syscall.EIO, true, true},
		{vlfs.ErrNeedsRepair, syscall.EIO, true, true},
		{syscall.EBADF, syscall.EBADF, true, false},
		{errors.New("something else"), syscall.EIO, false, true},
	}
	for _, tc := range tests {
		got, known := errnoOf.Errno(tc.err)
		if got != tc.want || known != tc.known || shouldLog(tc.err, known) != tc.logThis {
			t.Errorf("%v: errno %v known %v log %v, want %v %v %v", tc.err, got, known,
				shouldLog(tc.err, known), tc.want, tc.known, tc.logThis)
		}
	}
}

func TestRepairHint(t *testing.T) {
	tests := []struct {
		err   error
		image string
		want  string
	}{
		{fmt.Errorf("dir block 9: %w", vlfs.ErrCorrupt), "/x/img", "; the image is damaged: unmount it, then run vlfs fsck --repair /x/img"},
		{vlfs.ErrNeedsRepair, "", "; the image is damaged: unmount it, then run vlfs fsck --repair IMAGE"},
		{vlfs.ErrNoSpace, "/x/img", ""},
		{errors.New("something else"), "/x/img", ""},
	}
	for _, tc := range tests {
		if got := repairHint(tc.err, tc.image); got != tc.want {
			t.Errorf("%v, %q: %q, want %q", tc.err, tc.image, got, tc.want)
		}
	}
}
