package vlfs

import (
	"fmt"

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
