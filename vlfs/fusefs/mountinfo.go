package fusefs

import "github.com/vlfs/vlfs/internal/mountinfo"

// MountType reports whether dir (an absolute, clean path) is a mount point
// and, if so, its file-system type ("fuse.vlfs" for a vlfs mount).
func MountType(dir string) (fstype string, mounted bool, err error) {
	return mountinfo.Type(dir)
}

// MountsOf returns the mount points of the vlfs mounts whose source (the
// fsname option; `vlfs mount` sets it to the absolute image path) is source.
func MountsOf(source string) ([]string, error) {
	es, err := mountinfo.Read(mountinfo.Path)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range es {
		if e.FSType == "fuse.vlfs" && e.Source == source {
			dirs = append(dirs, e.Point)
		}
	}
	return dirs, nil
}
