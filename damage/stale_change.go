package damage

import (
	"fmt"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// staleChangeFor is the change that rewrites block b of kind, made on fs
// (the copy, mounted read-write), and how to find the block again: each
// change is the smallest real one that makes the file system write that
// block anew. old is what the block holds.
func staleChangeFor(fs *vlfs.FS, kind string, b block, old []byte) (staleChange, error) {
	bs := int64(fs.Volume().BlockSize())
	switch kind {
	case vlfs.MetaData:
		// Overwrite a few bytes of the file in that block.
		lbn, err := fileBlock(fs, b.ino, b.addr, bs)
		if err != nil {
			return staleChange{what: "an overwrite"}, err
		}
		return staleChange{
			what:   fmt.Sprintf("an overwrite of inode %d at %d", b.ino, lbn*bs),
			change: func(fs *vlfs.FS) error { return overwrite(fs, b.ino, lbn*bs) },
			locate: func(fs *vlfs.FS) (uint64, error) { return blockOf(fs, b.ino, lbn, bs) },
		}, nil
	case vlfs.MetaIndirect:
		// A write under it that changes its pointers (stale_node.go).
		k, lbn, grows, err := nodeTarget(fs, b, old, bs)
		if err != nil {
			return staleChange{what: "a write under an indirect block"}, err
		}
		sc := staleChange{
			what:   fmt.Sprintf("an overwrite of inode %d at %d, under its indirect block %d", b.ino, lbn*bs, k),
			change: func(fs *vlfs.FS) error { return overwrite(fs, b.ino, lbn*bs) },
			locate: func(fs *vlfs.FS) (uint64, error) { return nthMeta(fs, vlfs.MetaIndirect, b.ino, k) },
		}
		if grows {
			sc.what = fmt.Sprintf("a new block of inode %d at %d, under its indirect block %d", b.ino, lbn*bs, k)
			sc.change = func(fs *vlfs.FS) error { return grow(fs, b.ino, lbn*bs) }
		}
		return sc, nil
	case vlfs.MetaDirectory:
		return renameInBlock(fs, b, old)
	case vlfs.MetaXattr:
		return staleChange{
			what:   fmt.Sprintf("an xattr of inode %d set again", b.ino),
			change: func(fs *vlfs.FS) error { return resetXattr(fs, b.ino) },
			locate: func(fs *vlfs.FS) (uint64, error) {
				in, err := fs.InodeRecord(b.ino)
				return in.Xattr, err
			},
		}, nil
	case vlfs.MetaInodeBlock:
		ipb := uint64(bs) / vondisk.InodeSize
		ino, err := inUse(fs, b.ino, ipb)
		if err != nil {
			return staleChange{what: "a utimes"}, err
		}
		return staleChange{
			what:   fmt.Sprintf("a utimes of inode %d", ino),
			change: func(fs *vlfs.FS) error { return touch(fs, ino, 1) },
			locate: func(fs *vlfs.FS) (uint64, error) {
				addrs, _ := fs.InodeMap()
				if i := uint64(b.ino) / ipb; i < uint64(len(addrs)) {
					return addrs[i], nil
				}
				return 0, fmt.Errorf("%w: inode block of inode %d no longer mapped", ErrStale, b.ino)
			},
		}, nil
	case KindSlot:
		// Both slots hold the checkpoint and are written only by a new
		// one: the older version of a slot is the previous checkpoint,
		// whose blocks the new one may have recycled since.
		return staleChange{
			what:   "commits up to a new checkpoint",
			change: checkpoint,
			locate: func(*vlfs.FS) (uint64, error) { return b.addr, nil },
		}, nil
	case KindCkptDir:
		list, i, err := ckptDirIndex(fs, b.addr)
		if err != nil {
			return staleChange{what: "commits up to a new checkpoint"}, err
		}
		return staleChange{
			what:   fmt.Sprintf("commits up to a new checkpoint (directory %s block %d)", list, i),
			change: checkpoint,
			locate: func(fs *vlfs.FS) (uint64, error) {
				dir, copies := fs.Volume().CheckpointBlocks()
				l := dir
				if list == "copies" {
					l = copies
				}
				if i >= len(l) {
					return 0, fmt.Errorf("%w: the new checkpoint has %d directory %s blocks, not %d", ErrStale, len(l), list, i+1)
				}
				return uint64(l[i]), nil
			},
		}, nil
	case KindTail:
		// Written at every clean stop: the older version names the log
		// root of the stop before the change. The tail is a hint that
		// recovery checks against the log (an older one makes the mount
		// scan the window, as a damaged one does), so fsck need not
		// report it; what must hold is that the files read the newer
		// state, and so the change is one the files show: an overwrite.
		ino, err := someFile(fs)
		if err != nil {
			return staleChange{what: "an overwrite"}, err
		}
		return staleChange{
			what:     fmt.Sprintf("an overwrite of inode %d at 0", ino),
			change:   func(fs *vlfs.FS) error { return overwrite(fs, ino, 0) },
			locate:   func(*vlfs.FS) (uint64, error) { return uint64(ondisk.TailAddr), nil },
			readBack: true,
		}, nil
	}
	return staleChange{what: "no change"}, fmt.Errorf("%w: kind %s has no change that rewrites it", ErrStale, kind)
}

// overwrite inverts up to 16 bytes of ino at off, so they surely differ.
func overwrite(fs *vlfs.FS, ino vlfs.Ino, off int64) error {
	a, err := fs.GetAttr(ino)
	if err != nil {
		return err
	}
	buf := make([]byte, min(16, int64(a.Size)-off))
	if len(buf) == 0 {
		return fmt.Errorf("%w: inode %d has no byte at %d", ErrStale, ino, off)
	}
	n, err := fs.Read(ino, off, buf)
	if err != nil {
		return fmt.Errorf("reading inode %d at %d: %w", ino, off, err)
	}
	for i := range buf[:n] {
		buf[i] ^= 0xff
	}
	if _, err := fs.Write(ino, off, buf[:n]); err != nil {
		return fmt.Errorf("writing inode %d at %d: %w", ino, off, err)
	}
	return nil
}

// touch moves ino's mtime by step nanoseconds: an inode change and
// nothing else.
func touch(fs *vlfs.FS, ino vlfs.Ino, step int) error {
	a, err := fs.GetAttr(ino)
	if err != nil {
		return err
	}
	_, err = fs.SetAttr(ino, vlfs.SetAttr{Mask: vlfs.SetMtime, Mtime: a.Mtime.Add(time.Duration(step))})
	return err
}

// inUse is the first inode in use among the ipb of the inode block that
// starts at first.
func inUse(fs *vlfs.FS, first vlfs.Ino, ipb uint64) (vlfs.Ino, error) {
	for i := range vlfs.Ino(ipb) {
		if ino := first + i; ino != 0 {
			if _, err := fs.GetAttr(ino); err == nil {
				return ino, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: no inode in use in the block of inodes %d..%d", ErrStale, first, first+vlfs.Ino(ipb)-1)
}

// someFile is a regular file with data, the first one a walk from the
// root finds.
func someFile(fs *vlfs.FS) (vlfs.Ino, error) {
	dirs := []vlfs.Ino{vlfs.RootIno}
	for len(dirs) > 0 {
		d := dirs[0]
		dirs = dirs[1:]
		ents, err := fs.ReadDir(d)
		if err != nil {
			return 0, fmt.Errorf("reading directory inode %d: %w", d, err)
		}
		for _, e := range ents {
			switch {
			case e.Name == "." || e.Name == "..":
			case e.Mode&vondisk.ModeType == vondisk.ModeDir:
				dirs = append(dirs, e.Ino)
			case e.Mode&vondisk.ModeType == vondisk.ModeReg:
				if a, err := fs.GetAttr(e.Ino); err == nil && a.Size > 0 {
					return e.Ino, nil
				}
			}
		}
	}
	return 0, fmt.Errorf("%w: the image has no file with data, whose change the files would show", ErrStale)
}

// resetXattr sets ino's first extended attribute again with other bytes.
func resetXattr(fs *vlfs.FS, ino vlfs.Ino) error {
	names, err := fs.Listxattr(ino)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: inode %d has an xattr block and no attribute", ErrStale, ino)
	}
	v, err := fs.Getxattr(ino, names[0])
	if err != nil {
		return err
	}
	return fs.Setxattr(ino, names[0], append(v, '+'), 0)
}

// checkpointLimit bounds the commits checkpoint makes: a few times the
// volume's default interval (1024 log entries), whatever version 3's log
// records save of them.
const checkpointLimit = 1 << 14

// checkpoint commits small changes until the volume writes a checkpoint:
// its slots and directory are written by nothing else.
func checkpoint(fs *vlfs.FS) error {
	n0 := fs.Volume().Stats().Checkpoints
	for i := range checkpointLimit {
		if err := touch(fs, vlfs.RootIno, i+1); err != nil {
			return err
		}
		if err := fs.Sync(); err != nil {
			return err
		}
		if fs.Volume().Stats().Checkpoints > n0 {
			return nil
		}
	}
	return fmt.Errorf("%w: no checkpoint after %d commits", ErrStale, checkpointLimit)
}

// ckptDirIndex says which list of the checkpoint's directory ("dir" or
// "copies") holds block a, and where.
func ckptDirIndex(fs *vlfs.FS, a uint64) (string, int, error) {
	dir, copies := fs.Volume().CheckpointBlocks()
	for name, l := range map[string][]uint64{"dir": dir, "copies": copies} {
		if i := slices.Index(l, a); i >= 0 {
			return name, i, nil
		}
	}
	return "", 0, fmt.Errorf("%w: block %d is not in the checkpoint's directory", ErrStale, a)
}
