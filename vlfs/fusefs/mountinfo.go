package fusefs

import (
	"os"
	"slices"

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

// MountsOf returns the mount points of the vlfs mounts of the image that
// source names, however it names it: the image path (the fsname option;
// `vlfs mount` sets it to the absolute image path), a hard link or symlink
// to it, the loop device of a fuseblk mount, or another loop device
// attached to the same image. Files are compared by identity (device and
// inode), not by name.
func MountsOf(source string) ([]string, error) {
	es, err := mountinfo.Read(mountinfo.Path)
	if err != nil {
		return nil, err
	}
	want := identities(source)
	var dirs []string
	for _, e := range es {
		if !IsVLFS(e.FSType) {
			continue
		}
		for _, id := range identities(e.Source) {
			if slices.ContainsFunc(want, func(w os.FileInfo) bool { return os.SameFile(w, id) }) {
				dirs = append(dirs, e.Point)
				break
			}
		}
	}
	return dirs, nil
}

// identities returns the files path stands for: itself and, for a loop
// device, its backing file, and so on down a chain of loop devices.
func identities(path string) []os.FileInfo {
	var ids []os.FileInfo
	for range 8 {
		st, err := os.Stat(path)
		if err != nil {
			break
		}
		ids = append(ids, st)
		if path = loopdev.BackingFile(path); path == "" {
			break
		}
	}
	return ids
}
