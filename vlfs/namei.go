package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Lookup returns the attributes of name in dir and counts a lookup.
func (fs *FS) Lookup(dir Ino, name string) (Attr, error) {
	fs.stats.count(opLookup, 0)
	if err := checkName(name); err != nil {
		return Attr{}, err
	}
	var a Attr
	err := fs.readOnlyOp(func() error {
		d, err := fs.dirInodeLocked(dir)
		if err != nil {
			return err
		}
		in, err := fs.childLocked(d, name)
		if err != nil {
			return err
		}
		fs.lookups[in.ino]++ // after the last load: a run that defers one never gets here
		a = fs.attrLocked(in)
		return nil
	})
	return a, err
}

// newEntry describes an inode to create in a directory.
type newEntry struct {
	dir        Ino
	name       string
	mode       uint32
	uid, gid   uint32
	rdev       uint32
	dataBlocks int64                 // data blocks the new inode needs at once
	setup      func(in *inode) error // fills in type-specific state
}

// create makes a new inode and its entry, committing once to reclaim
// space if the disk is short.
func (fs *FS) create(op opKind, e newEntry) (Attr, error) {
	fs.stats.count(op, 0)
	if err := checkName(e.name); err != nil {
		return Attr{}, err
	}
	fs.warm(nil, dirName{e.dir, e.name}) // the directory, and whether the name is taken
	var a Attr
	err := fs.retryNoSpace(func() error {
		var err error
		a, err = fs.createLocked(e)
		return err
	})
	return a, err
}

// newChildDirLocked returns directory dir, which a new inode is to go in,
// on a file system that may be written: not removed.
func (fs *FS) newChildDirLocked(dir Ino) (*inode, error) {
	if err := fs.checkWritableLocked(); err != nil {
		return nil, err
	}
	d, err := fs.dirInodeLocked(dir)
	if err != nil {
		return nil, err
	}
	if d.d.Nlink == 0 {
		return nil, fmt.Errorf("directory %d was removed: %w", dir, ErrNotExist)
	}
	return d, nil
}

func (fs *FS) createLocked(e newEntry) (Attr, error) {
	d, err := fs.newChildDirLocked(e.dir)
	if err != nil {
		return Attr{}, err
	}
	ds, err := fs.dirLocked(d)
	if err != nil {
		return Attr{}, err
	}
	if _, ok := ds.ents[e.name]; ok || isDot(e.name) {
		return Attr{}, fmt.Errorf("%q in directory %d: %w", e.name, e.dir, ErrExist)
	}
	if err := fs.checkSpaceLocked(e.dataBlocks + 2); err != nil {
		return Attr{}, err
	}
	in, err := fs.newInodeLocked(e.mode, e.uid, e.gid)
	if err != nil {
		return Attr{}, err
	}
	in.d.Rdev = e.rdev
	if e.setup != nil {
		if err := e.setup(in); err != nil {
			return Attr{}, errors.Join(err, fs.freeInodeLocked(in))
		}
	}
	if err := fs.dirAddLocked(d, e.name, in.ino, in.d.Mode); err != nil {
		return Attr{}, errors.Join(err, fs.freeInodeLocked(in))
	}
	if in.isDir() {
		in.d.Nlink, in.d.Parent = 2, uint64(d.ino)
		in.dir = &dirState{ents: map[string]dirEnt{}}
		d.d.Nlink++
	}
	fs.changedLocked(d)
	fs.lookups[in.ino]++
	return fs.attrLocked(in), nil
}

// Create makes a regular file; its lookup count is 1.
func (fs *FS) Create(dir Ino, name string, mode, uid, gid uint32) (Attr, error) {
	return fs.create(opCreate, newEntry{dir: dir, name: name, mode: ondisk.ModeReg | mode&ondisk.ModePerm, uid: uid, gid: gid})
}

// Mkdir makes a directory.
func (fs *FS) Mkdir(dir Ino, name string, mode, uid, gid uint32) (Attr, error) {
	return fs.create(opMkdir, newEntry{dir: dir, name: name, mode: ondisk.ModeDir | mode&ondisk.ModePerm, uid: uid, gid: gid})
}

// Mknod makes a regular file, FIFO, socket or device node.
func (fs *FS) Mknod(dir Ino, name string, mode, rdev, uid, gid uint32) (Attr, error) {
	t := typeOf(mode)
	switch t {
	case 0:
		t = ondisk.ModeReg
	case ondisk.ModeReg, ondisk.ModeFIFO, ondisk.ModeChr, ondisk.ModeBlk, ondisk.ModeSock:
	default:
		fs.stats.count(opMknod, 0)
		return Attr{}, fmt.Errorf("mknod of type %#o: %w", t, ErrInvalid)
	}
	if t != ondisk.ModeChr && t != ondisk.ModeBlk {
		rdev = 0
	}
	return fs.create(opMknod, newEntry{dir: dir, name: name, mode: t | mode&ondisk.ModePerm, rdev: rdev, uid: uid, gid: gid})
}

// Symlink makes a symbolic link to target.
func (fs *FS) Symlink(dir Ino, name, target string, uid, gid uint32) (Attr, error) {
	if target == "" {
		fs.stats.count(opSymlink, 0)
		return Attr{}, fmt.Errorf("empty symlink target: %w", ErrInvalid)
	}
	if len(target) >= fs.geo.bs {
		fs.stats.count(opSymlink, 0)
		return Attr{}, fmt.Errorf("symlink target of %d bytes: %w", len(target), ErrNameTooLong)
	}
	setup := func(in *inode) error {
		buf := make([]byte, fs.geo.bs)
		copy(buf, target)
		in.data = map[uint64][]byte{0: buf}
		in.d.Size, in.d.Blocks = uint64(len(target)), 1
		fs.reserved++
		fs.dirtyBytes += int64(fs.geo.bs)
		return nil
	}
	return fs.create(opSymlink, newEntry{dir: dir, name: name, mode: ondisk.ModeLnk | 0o777, uid: uid, gid: gid,
		dataBlocks: 1, setup: setup})
}

// Readlink returns a symbolic link's target.
func (fs *FS) Readlink(ino Ino) (string, error) {
	fs.stats.count(opReadlink, 0)
	fs.lock()
	defer fs.unlock()
	in, err := fs.getLocked(ino)
	if err != nil {
		return "", err
	}
	if !in.isLnk() {
		return "", fmt.Errorf("inode %d is not a symlink: %w", ino, ErrInvalid)
	}
	if in.d.Size >= uint64(fs.geo.bs) {
		return "", fmt.Errorf("symlink %d: size %d: %w", ino, in.d.Size, ErrCorrupt)
	}
	buf := make([]byte, in.d.Size)
	if _, err := fs.readLocked(in, 0, buf); err != nil {
		return "", err
	}
	return string(buf), nil
}

// Link adds newName in newDir for inode ino.
func (fs *FS) Link(ino, newDir Ino, newName string) (Attr, error) {
	fs.stats.count(opLink, 0)
	if err := checkName(newName); err != nil {
		return Attr{}, err
	}
	fs.warm([]Ino{ino}, dirName{newDir, newName})
	var a Attr
	err := fs.retryNoSpace(func() error {
		var err error
		a, err = fs.linkLocked(ino, newDir, newName)
		return err
	})
	return a, err
}

func (fs *FS) linkLocked(ino, newDir Ino, newName string) (Attr, error) {
	if err := fs.checkWritableLocked(); err != nil {
		return Attr{}, err
	}
	in, err := fs.getLocked(ino)
	if err != nil {
		return Attr{}, err
	}
	if in.isDir() {
		return Attr{}, fmt.Errorf("hard link to directory %d: %w", ino, ErrPerm)
	}
	if in.d.Nlink == 0 && !fs.linkable[ino] {
		return Attr{}, fmt.Errorf("link to unlinked inode %d: %w", ino, ErrNotExist)
	}
	d, err := fs.dirInodeLocked(newDir)
	if err != nil {
		return Attr{}, err
	}
	ds, err := fs.dirLocked(d)
	if err != nil {
		return Attr{}, err
	}
	if _, ok := ds.ents[newName]; ok || isDot(newName) {
		return Attr{}, fmt.Errorf("%q in directory %d: %w", newName, newDir, ErrExist)
	}
	if d.d.Nlink == 0 {
		return Attr{}, fmt.Errorf("directory %d was removed: %w", newDir, ErrNotExist)
	}
	if err := fs.checkSpaceLocked(1); err != nil {
		return Attr{}, err
	}
	if err := fs.dirAddLocked(d, newName, in.ino, in.d.Mode); err != nil {
		return Attr{}, err
	}
	if in.d.Nlink == 0 { // an O_TMPFILE file gets its name
		delete(fs.linkable, ino)
		delete(fs.orphans, ino)
	}
	in.d.Nlink++
	in.d.Ctime = now()
	fs.touchLocked(in)
	fs.changedLocked(d)
	fs.lookups[in.ino]++
	return fs.attrLocked(in), nil
}

// Unlink removes a non-directory entry. The inode lives on while it is
// looked up or open.
func (fs *FS) Unlink(dir Ino, name string) error {
	fs.stats.count(opUnlink, 0)
	if err := checkName(name); err != nil {
		return err
	}
	fs.warm(nil, dirName{dir, name})
	if err := fs.lockChange(); err != nil {
		fs.unlock()
		return err
	}
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	d, err := fs.dirInodeLocked(dir)
	if err != nil {
		return err
	}
	if isDot(name) {
		return fmt.Errorf("unlink %q: %w", name, ErrIsDir)
	}
	in, err := fs.childLocked(d, name)
	if err != nil {
		return err
	}
	if in.isDir() {
		return fmt.Errorf("unlink of directory %q: %w", name, ErrIsDir)
	}
	if err := fs.dirRemoveLocked(d, name); err != nil {
		return err
	}
	fs.changedLocked(d)
	return fs.dropLinkLocked(in)
}

// Rmdir removes an empty directory.
func (fs *FS) Rmdir(dir Ino, name string) error {
	fs.stats.count(opRmdir, 0)
	if err := checkName(name); err != nil {
		return err
	}
	fs.warm(nil, dirName{dir, name})
	if err := fs.lockChange(); err != nil {
		fs.unlock()
		return err
	}
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	d, err := fs.dirInodeLocked(dir)
	if err != nil {
		return err
	}
	switch name {
	case ".":
		return fmt.Errorf("rmdir \".\": %w", ErrInvalid)
	case "..":
		return fmt.Errorf("rmdir \"..\": %w", ErrNotEmpty)
	}
	in, err := fs.childLocked(d, name)
	if err != nil {
		return err
	}
	if err := fs.checkEmptyDirLocked(in); err != nil {
		return err
	}
	if err := fs.dirRemoveLocked(d, name); err != nil {
		return err
	}
	d.d.Nlink--
	fs.changedLocked(d)
	return fs.dropLinkLocked(in)
}

// checkEmptyDirLocked fails unless in is a directory with no entries.
func (fs *FS) checkEmptyDirLocked(in *inode) error {
	if !in.isDir() {
		return fmt.Errorf("inode %d: %w", in.ino, ErrNotDir)
	}
	ds, err := fs.dirLocked(in)
	if err != nil {
		return err
	}
	if len(ds.ents) > 0 {
		return fmt.Errorf("directory %d has %d entries: %w", in.ino, len(ds.ents), ErrNotEmpty)
	}
	return nil
}

// dropLinkLocked removes one link of in (a directory loses its only one)
// and frees it if nothing references it any more.
func (fs *FS) dropLinkLocked(in *inode) error {
	if in.isDir() {
		in.d.Nlink = 0
	} else if in.d.Nlink > 0 {
		in.d.Nlink--
	}
	in.d.Ctime = now()
	fs.touchLocked(in)
	if in.d.Nlink > 0 {
		return nil
	}
	if fs.lookups[in.ino] > 0 || fs.opens[in.ino] > 0 {
		fs.orphans[in.ino] = true
		return nil
	}
	return fs.freeInodeLocked(in)
}
