package vlfs

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// InodeRecord returns inode ino's record as the file system holds it now
// (dirty changes included), for inspection tools.
func (fs *FS) InodeRecord(ino Ino) (ondisk.Inode, error) {
	fs.lock()
	defer fs.unlock()
	if in := fs.inodes[ino]; in != nil {
		return in.d, nil
	}
	if ino == 0 {
		return ondisk.Inode{}, fmt.Errorf("inode 0: %w", ErrNotExist)
	}
	return fs.readInodeLocked(uint64(ino))
}

// InodeMap returns a copy of the inode map: the address of each inode
// block by inode-block number (0 = none), and the inodes in use.
func (fs *FS) InodeMap() (addrs []uint64, inUse int64) {
	fs.lock()
	defer fs.unlock()
	return append([]uint64(nil), fs.imap.addrs...), fs.imap.nused
}

// Superblock returns the file system's superblock (the volume's AppData).
func (fs *FS) Superblock() ondisk.Superblock { return fs.sb }

// NodeMap returns the node part of the inode map: the address of each
// numbered indirect block by node number (0: none). Empty under
// file-system version 1.
func (fs *FS) NodeMap() []uint64 {
	fs.lock()
	defer fs.unlock()
	return append([]uint64(nil), fs.imap.nodes...)
}

// MetaBlock is one block of the file system's metadata (or, with data,
// of a file), as MetaBlocks lists them.
type MetaBlock struct {
	Kind string `json:"kind"` // MetaInodeBlock, MetaIndirect, MetaDirectory, MetaXattr, MetaData
	Addr uint64 `json:"addr"`
	// Ino is the inode the block belongs to; for an inode block, the
	// first inode it holds.
	Ino Ino `json:"ino"`
}

// Kinds of MetaBlock.
const (
	MetaInodeBlock = "inode-block"
	MetaIndirect   = "indirect"
	MetaDirectory  = "directory"
	MetaXattr      = "xattr"
	MetaData       = "data"
)

// MetaBlocks lists every inode block, indirect block, directory block and
// xattr block, and with data every file data block, in inode order (a
// damage matrix picks from them: damage/). Inodes are read without being
// cached.
func (fs *FS) MetaBlocks(data bool) ([]MetaBlock, error) {
	fs.commitMu.Lock()
	defer fs.commitMu.Unlock()
	fs.lock()
	defer fs.unlock()
	var out []MetaBlock
	for ibn, a := range fs.imap.addrs {
		if a != 0 {
			out = append(out, MetaBlock{MetaInodeBlock, a, Ino(uint64(ibn) * fs.geo.ipb)})
		}
	}
	for ino := uint64(1); ino < fs.imap.numBlocks()*fs.geo.ipb; ino++ {
		if !fs.imap.isUsed(ino) {
			continue
		}
		in := fs.inodes[Ino(ino)]
		cached := in != nil
		if !cached {
			d, err := fs.readInodeLocked(ino)
			if err != nil {
				return nil, err
			}
			in = &inode{ino: Ino(ino), d: d}
		}
		if in.d.Xattr != 0 {
			out = append(out, MetaBlock{MetaXattr, in.d.Xattr, in.ino})
		}
		err := fs.forEachBlockLocked(in, func(node bool, _ uint64, a uint64, _ uint32) error {
			switch {
			case a == 0, !node && a == ondisk.UnwrittenAddr: // no block
			case node:
				out = append(out, MetaBlock{MetaIndirect, a, in.ino})
			case in.isDir():
				out = append(out, MetaBlock{MetaDirectory, a, in.ino})
			case data && in.isReg():
				out = append(out, MetaBlock{MetaData, a, in.ino})
			}
			return nil
		})
		if !cached {
			fs.nodes -= len(in.nodes)
		}
		if err != nil {
			return nil, fmt.Errorf("inode %d: %w", ino, err)
		}
	}
	return out, nil
}

// Volume is the volume the file system is stored on (for inspection).
func (fs *FS) Volume() *vld.Volume { return fs.vol }
