package vlfs

import "fmt"

// Rename moves oldDir/oldName to newDir/newName, replacing a compatible
// target, atomically (a commit sees all of it or none). flags may hold
// RenameNoReplace or RenameExchange.
func (fs *FS) Rename(oldDir Ino, oldName string, newDir Ino, newName string, flags uint32) error {
	fs.stats.count(opRename, 0)
	if flags&^(RenameNoReplace|RenameExchange) != 0 || flags == RenameNoReplace|RenameExchange {
		return fmt.Errorf("rename flags %#x: %w", flags, ErrInvalid)
	}
	for _, n := range []string{oldName, newName} {
		if err := checkName(n); err != nil {
			return err
		}
		if isDot(n) {
			return fmt.Errorf("rename of %q: %w", n, ErrInvalid)
		}
	}
	fs.warm(nil, dirName{oldDir, oldName}, dirName{newDir, newName})
	if err := fs.lockChange(); err != nil {
		fs.unlock()
		return err
	}
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	r, err := fs.resolveRenameLocked(oldDir, oldName, newDir, newName)
	if err != nil {
		return err
	}
	switch {
	case flags&RenameExchange != 0:
		return fs.exchangeLocked(r)
	case r.dst != nil && flags&RenameNoReplace != 0:
		return fmt.Errorf("rename onto %q: %w", newName, ErrExist)
	}
	return fs.moveLocked(r)
}

// renameArgs are the resolved inodes of a rename.
type renameArgs struct {
	od, nd           *inode
	oldName, newName string
	src, dst         *inode // dst nil if newName does not exist
}

func (fs *FS) resolveRenameLocked(oldDir Ino, oldName string, newDir Ino, newName string) (renameArgs, error) {
	r := renameArgs{oldName: oldName, newName: newName}
	var err error
	if r.od, err = fs.dirInodeLocked(oldDir); err != nil {
		return r, err
	}
	if r.nd, err = fs.dirInodeLocked(newDir); err != nil {
		return r, err
	}
	if r.src, err = fs.childLocked(r.od, oldName); err != nil {
		return r, err
	}
	nds, err := fs.dirLocked(r.nd)
	if err != nil {
		return r, err
	}
	if e, ok := nds.ents[newName]; ok {
		if r.dst, err = fs.getLocked(e.ino); err != nil {
			return r, err
		}
	}
	if r.nd.d.Nlink == 0 {
		return r, fmt.Errorf("directory %d was removed: %w", newDir, ErrNotExist)
	}
	return r, nil
}

// moveLocked is a plain rename (replacing dst if it exists).
func (fs *FS) moveLocked(r renameArgs) error {
	if r.dst == r.src {
		return nil // two links to one inode: POSIX says do nothing
	}
	if err := fs.checkMoveLocked(r.src, r.nd); err != nil {
		return err
	}
	if r.dst != nil {
		if r.src.isDir() {
			if err := fs.checkEmptyDirLocked(r.dst); err != nil {
				return err
			}
		} else if r.dst.isDir() {
			return fmt.Errorf("rename of a file onto directory %q: %w", r.newName, ErrIsDir)
		}
		if err := fs.dirSetLocked(r.nd, r.newName, r.src.ino, r.src.d.Mode); err != nil {
			return err
		}
		if r.dst.isDir() {
			r.nd.d.Nlink--
		}
		if err := fs.dropLinkLocked(r.dst); err != nil {
			return err
		}
	} else if err := fs.dirAddLocked(r.nd, r.newName, r.src.ino, r.src.d.Mode); err != nil {
		return err
	}
	if err := fs.dirRemoveLocked(r.od, r.oldName); err != nil {
		return err
	}
	fs.reparentLocked(r.src, r.od, r.nd)
	return nil
}

// exchangeLocked swaps two existing entries.
func (fs *FS) exchangeLocked(r renameArgs) error {
	if r.dst == nil {
		return fmt.Errorf("exchange with missing %q: %w", r.newName, ErrNotExist)
	}
	if r.dst == r.src {
		return nil
	}
	if err := fs.checkMoveLocked(r.src, r.nd); err != nil {
		return err
	}
	if err := fs.checkMoveLocked(r.dst, r.od); err != nil {
		return err
	}
	if err := fs.dirSetLocked(r.od, r.oldName, r.dst.ino, r.dst.d.Mode); err != nil {
		return err
	}
	if err := fs.dirSetLocked(r.nd, r.newName, r.src.ino, r.src.d.Mode); err != nil {
		return err
	}
	fs.reparentLocked(r.src, r.od, r.nd)
	fs.reparentLocked(r.dst, r.nd, r.od)
	return nil
}

// checkMoveLocked refuses to move directory src into itself or below.
func (fs *FS) checkMoveLocked(src, to *inode) error {
	if !src.isDir() {
		return nil
	}
	cur := to
	for steps := int64(0); steps <= fs.imap.nused; steps++ {
		if cur == src {
			return fmt.Errorf("moving directory %d inside itself: %w", src.ino, ErrInvalid)
		}
		if cur.ino == RootIno {
			return nil
		}
		next, err := fs.getLocked(Ino(cur.d.Parent))
		if err != nil {
			return err
		}
		cur = next
	}
	return fmt.Errorf("directory %d: parent chain loops: %w", to.ino, ErrCorrupt)
}

// reparentLocked records that in moved from directory from to directory
// to, fixing ".." and the directories' link counts.
func (fs *FS) reparentLocked(in, from, to *inode) {
	if in.isDir() && from != to {
		in.d.Parent = uint64(to.ino)
		from.d.Nlink--
		to.d.Nlink++
	}
	in.d.Ctime = now()
	fs.touchLocked(in)
	fs.changedLocked(from)
	fs.changedLocked(to)
}
