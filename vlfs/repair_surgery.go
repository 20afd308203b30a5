package vlfs

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
)

// The Surgery methods damage a file system ON PURPOSE, so that tests (and
// experts, through `vlfs inspect`) can show that Check finds each kind of
// damage and Repair fixes it. They bypass every invariant the other
// methods keep. Never use them on data you care about. The damage reaches
// the disk at the next commit (Sync or Close).

// SurgerySetNlink sets ino's link count to n, changing nothing else.
func (fs *FS) SurgerySetNlink(ino Ino, n uint32) error {
	return fs.surgery(ino, func(in *inode) error { in.d.Nlink = n; return nil })
}

// SurgerySetBlocks sets ino's block count to n.
func (fs *FS) SurgerySetBlocks(ino Ino, n uint64) error {
	return fs.surgery(ino, func(in *inode) error { in.d.Blocks = n; return nil })
}

// SurgerySetSize sets ino's size to n without freeing or adding blocks.
func (fs *FS) SurgerySetSize(ino Ino, n uint64) error {
	return fs.surgery(ino, func(in *inode) error { in.d.Size = n; return nil })
}

// SurgerySetParent sets directory ino's ".." to parent.
func (fs *FS) SurgerySetParent(ino, parent Ino) error {
	return fs.surgery(ino, func(in *inode) error { in.d.Parent = uint64(parent); return nil })
}

// SurgeryShareBlock points ino's direct pointer i at the block of from's
// direct pointer 0: one block claimed twice. The block ino's pointer held
// before is left unreferenced.
func (fs *FS) SurgeryShareBlock(ino Ino, i int, from Ino) error {
	return fs.surgery(ino, func(in *inode) error {
		src, err := fs.getLocked(from)
		if err != nil {
			return err
		}
		if i < 0 || i >= len(in.d.Direct) || src.d.Direct[0] == 0 {
			return fmt.Errorf("surgery: share block: pointer %d, source block %d: %w", i, src.d.Direct[0], ErrInvalid)
		}
		in.d.Direct[i] = src.d.Direct[0]
		return nil
	})
}

// SurgeryDropEntry removes name from directory dir, leaving the inode it
// names (and every link count) as it was.
func (fs *FS) SurgeryDropEntry(dir Ino, name string) error {
	return fs.surgery(dir, func(d *inode) error {
		if err := fs.dirRemoveLocked(d, name); err != nil {
			return err
		}
		fs.touchLocked(d)
		return nil
	})
}

// SurgeryAddEntry adds an entry name -> ino of type mode (S_IFMT bits) to
// directory dir, changing no link count; ino need not be in use.
func (fs *FS) SurgeryAddEntry(dir Ino, name string, ino Ino, mode uint32) error {
	return fs.surgery(dir, func(d *inode) error {
		if err := fs.dirAddLocked(d, name, ino, mode); err != nil {
			return err
		}
		fs.touchLocked(d)
		return nil
	})
}

// SurgeryOrphan removes every entry naming ino from the directories
// reachable from the root, leaving ino in use with its link count: an
// inode no path reaches. It returns the number of entries removed.
func (fs *FS) SurgeryOrphan(ino Ino) (int, error) {
	fs.commitMu.Lock()
	fs.lock()
	c := fs.checkLocked(false) // for the entries it learns
	fs.unlock()
	fs.commitMu.Unlock()
	n := 0
	for _, d := range sortedInos(c.children) {
		for _, cr := range c.children[d] {
			if cr.ino != ino {
				continue
			}
			if err := fs.SurgeryDropEntry(d, cr.name); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// SurgeryLeakBlock writes an empty inode block and records it in the
// inode map under the first unused inode-block number: a block held by
// the inode map that serves nothing. It returns the block's address.
func (fs *FS) SurgeryLeakBlock() (uint64, error) {
	fs.lock()
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return 0, err
	}
	b := make([]byte, fs.geo.bs)
	addrs, err := fs.vol.WriteBlocks([][]byte{b}, vld.WriteOpts{Meta: true})
	if err != nil {
		return 0, fmt.Errorf("surgery: leak block: %w", err)
	}
	ibn := fs.imap.numBlocks()
	fs.imap.setAddr(ibn, addrs[0], fs.geo.sum(b))
	fs.markDirtySinceLocked()
	return addrs[0], nil
}

// surgery runs fn on the live inode ino and marks it dirty.
func (fs *FS) surgery(ino Ino, fn func(in *inode) error) error {
	fs.lock()
	defer fs.unlock()
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	in, err := fs.getLocked(ino)
	if err != nil {
		return fmt.Errorf("surgery: %w", err)
	}
	if err := fn(in); err != nil {
		return err
	}
	fs.touchLocked(in)
	return nil
}
