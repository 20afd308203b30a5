package vlfs

import "github.com/vlfs/vlfs/vlfs/ondisk"

// CreateTmp makes a regular file with no name, as open(2) with O_TMPFILE
// does in directory dir: link count 0 and lookup count 1, an orphan that
// is freed once nothing references it, unless Link names it first. A crash
// before that leaves an inode with no link, which the next mount frees as
// it frees every orphan.
func (fs *FS) CreateTmp(dir Ino, mode, uid, gid uint32) (Attr, error) {
	fs.stats.count(opCreate, 0)
	var a Attr
	err := fs.retryNoSpace(func() error {
		var err error
		a, err = fs.createTmpLocked(dir, ondisk.ModeReg|mode&ondisk.ModePerm, uid, gid)
		return err
	})
	return a, err
}

func (fs *FS) createTmpLocked(dir Ino, mode, uid, gid uint32) (Attr, error) {
	if _, err := fs.newChildDirLocked(dir); err != nil {
		return Attr{}, err
	}
	if err := fs.checkSpaceLocked(1); err != nil {
		return Attr{}, err
	}
	in, err := fs.newInodeLocked(mode, uid, gid)
	if err != nil {
		return Attr{}, err
	}
	in.d.Nlink = 0
	fs.orphans[in.ino] = true
	fs.linkable[in.ino] = true
	fs.lookups[in.ino]++
	return fs.attrLocked(in), nil
}
