package vlfs

import (
	"fmt"
	"strings"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// checkName validates a name given to any operation: too long is
// ErrNameTooLong, empty or containing '/' or NUL is ErrInvalid.
func checkName(name string) error {
	switch {
	case len(name) > MaxNameLen:
		return fmt.Errorf("name of %d bytes: %w", len(name), ErrNameTooLong)
	case name == "" || strings.ContainsAny(name, "/\x00"):
		return fmt.Errorf("name %q: %w", name, ErrInvalid)
	}
	return nil
}

func isDot(name string) bool { return name == "." || name == ".." }

// checkWritableLocked refuses changes on a read-only mount.
func (fs *FS) checkWritableLocked() error {
	if fs.readOnly {
		return ErrReadOnly
	}
	return fs.failed
}

// dirInodeLocked returns the live directory ino.
func (fs *FS) dirInodeLocked(ino Ino) (*inode, error) {
	d, err := fs.getLocked(ino)
	if err != nil {
		return nil, err
	}
	if !d.isDir() {
		return nil, fmt.Errorf("inode %d: %w", ino, ErrNotDir)
	}
	return d, nil
}

// childLocked looks name up in directory d ("." and ".." included).
func (fs *FS) childLocked(d *inode, name string) (*inode, error) {
	switch name {
	case ".":
		return d, nil
	case "..":
		return fs.getLocked(Ino(d.d.Parent))
	}
	ds, err := fs.dirLocked(d)
	if err != nil {
		return nil, err
	}
	e, ok := ds.ents[name]
	if !ok {
		return nil, fmt.Errorf("%q in directory %d: %w", name, d.ino, ErrNotExist)
	}
	return fs.getLocked(e.ino)
}

// attrLocked converts in's record to an Attr.
func (fs *FS) attrLocked(in *inode) Attr {
	d := &in.d
	return Attr{Ino: in.ino, Mode: d.Mode, Nlink: d.Nlink, Uid: d.Uid, Gid: d.Gid, Rdev: d.Rdev,
		Size: d.Size, Blocks: d.Blocks * uint64(fs.geo.bs/512),
		Atime: fromTimespec(d.Atime), Mtime: fromTimespec(d.Mtime), Ctime: fromTimespec(d.Ctime), Gen: d.Gen}
}

// changedLocked stamps mtime and ctime of a directory whose entries changed.
func (fs *FS) changedLocked(in *inode) {
	t := now()
	in.d.Mtime, in.d.Ctime = t, t
	fs.touchLocked(in)
}

func typeOf(mode uint32) uint32 { return mode & ondisk.ModeType }
