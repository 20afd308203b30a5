package main

import (
	"fmt"

	"github.com/vlfs/vlfs/internal/loopdev"
)

// attachLoop attaches the image to a loop device for -o blkdev, and returns
// nil for a plain FUSE mount. The kernel sends syncfs(2) and sync(2) on
// only to fuseblk (and virtiofs) mounts, so only then do they commit
// (docs/durability.md). It is not the default, even for root: the mount
// table would then name /dev/loopN as the source and fuseblk.vlfs as the
// type, where an fstab entry of type fuse.vlfs names the image, and
// mount(8) matches entries to mounts by both.
func attachLoop(a *mountArgs) (*loopdev.Device, error) {
	if a.blkdev != "on" {
		return nil, nil
	}
	if err := loopdev.Available(); err != nil {
		return nil, fmt.Errorf("-o blkdev: %w", err)
	}
	d, err := loopdev.Attach(a.image, a.fuse.ReadOnly)
	if err != nil {
		return nil, fmt.Errorf("-o blkdev: %w", err)
	}
	return d, nil
}
