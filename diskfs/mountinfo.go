package diskfs

import "github.com/vlfs/vlfs/internal/mountinfo"

// MountType reports whether dir (absolute, clean) is a mount point and, if
// so, its type as the mount table says ("fuse.vlfs-disk" for this package).
func MountType(dir string) (fstype string, mounted bool, err error) {
	return mountinfo.Type(dir)
}
