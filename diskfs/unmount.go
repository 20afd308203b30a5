package diskfs

import (
	"fmt"
	"path/filepath"

	"github.com/vlfs/vlfs/fuseserve"
)

// Unmount unmounts the diskfs mount at dir with fusermount3 -u. It refuses,
// with an error wrapping ErrBusy that names every holder and how to release
// it, while anything still uses dir/disk: a loop device, a file system
// mounted on top, an open descriptor. Unmounting then would leave that file
// system writing to a disk that is gone. A directory that is not a mount
// point gives ErrNotMounted.
func Unmount(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, mounted, err := MountType(abs); err != nil {
		return err
	} else if !mounted {
		return fmt.Errorf("unmount %s: %w", abs, ErrNotMounted)
	}
	disk := filepath.Join(abs, DiskFile)
	hs, err := Holders(disk)
	if err != nil {
		return err
	}
	if len(hs) > 0 {
		return fmt.Errorf("refusing to unmount %s: %s: %w", abs, describeHolders(disk, hs), ErrBusy)
	}
	return unmounter().Unmount(abs, false)
}

// unmounter unmounts diskfs mounts with this package's sentinels. A busy
// mount point (a working directory inside, say) gives ErrBusy at once.
func unmounter() fuseserve.Unmounter {
	return fuseserve.Unmounter{Busy: ErrBusy, NotMounted: ErrNotMounted}
}
