package fusefs

import (
	"github.com/vlfs/vlfs/internal/loopdev"
	"github.com/vlfs/vlfs/internal/mountinfo"
)

// IsVLFS reports whether a mount table's file-system type is a vlfs
// mount's: fuse.vlfs, or fuseblk.vlfs when mounted over a loop device
// (Options.BlockDevice).
func IsVLFS(fstype string) bool { return fstype == "fuse.vlfs" || fstype == "fuseblk.vlfs" }

// MountType reports whether dir (an absolute, clean path) is a mount point
// and, if so, its file-system type ("fuse.vlfs" for a vlfs mount).
func MountType(dir string) (fstype string, mounted bool, err error) {
	return mountinfo.Type(dir)
}

// MountsOf returns the mount points of the vlfs mounts whose source (the
// fsname option; `vlfs mount` sets it to the absolute image path) is source,
// or whose loop device is backed by it.
func MountsOf(source string) ([]string, error) {
	es, err := mountinfo.Read(mountinfo.Path)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range es {
		if (e.FSType == "fuse.vlfs" && e.Source == source) ||
			(e.FSType == "fuseblk.vlfs" && loopdev.BackingFile(e.Source) == source) {
			dirs = append(dirs, e.Point)
		}
	}
	return dirs, nil
}
