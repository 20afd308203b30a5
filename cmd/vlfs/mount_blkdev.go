package main

import (
	"fmt"

	"github.com/vlfs/vlfs/internal/loopdev"
)

// attachLoop attaches the image to a loop device when the mount is to be of
// type fuseblk, and returns nil for a plain FUSE mount. The kernel sends
// syncfs(2) and sync(2) on only to fuseblk (and virtiofs) mounts, so only
// then do they commit (docs/durability.md). By default that is whenever
// root can attach a loop device; -o blkdev insists (an error if it cannot)
// and -o noblkdev declines, as the fstab helper does (an fstab entry of type
// fuse.vlfs names the image, and mount(8) matches entries to mounts by
// source and type, which a fuseblk.vlfs mount on /dev/loopN would not
// match).
func attachLoop(a *mountArgs, logf func(string, ...any)) (*loopdev.Device, error) {
	if a.blkdev == "off" {
		return nil, nil
	}
	err := loopdev.Available()
	if err == nil {
		var d *loopdev.Device
		if d, err = loopdev.Attach(a.image, a.fuse.ReadOnly); err == nil {
			return d, nil
		}
	}
	if a.blkdev == "on" {
		return nil, fmt.Errorf("-o blkdev: %w", err)
	}
	logf("vlfs mount: a plain FUSE mount (%v): sync(2) and syncfs(2) will not commit, fsync does (docs/durability.md)", err)
	return nil, nil
}
