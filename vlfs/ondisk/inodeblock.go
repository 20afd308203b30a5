package ondisk

import (
	"errors"
	"fmt"
)

// An inode block is BlockSize/InodeSize inode slots with no header of its
// own: every slot carries its own magic, inode number and checksum (see
// Inode), so a block of 4 KiB holds 16 inodes.

// InodesPerBlock is the number of inode slots in a block of bs bytes.
func InodesPerBlock(bs int) int { return bs / InodeSize }

// DecodeInodeBlock parses every slot of the inode block b, whose first slot
// is inode number first, and calls fn with the slot index and the inode. An
// all-zero slot is reported as a free inode (Mode 0, Gen 0).
func DecodeInodeBlock(b []byte, first uint64, fn func(slot int, n *Inode) error) error {
	if len(b) < InodeSize || len(b)%InodeSize != 0 {
		return fmt.Errorf("inode block at inode %d: %d bytes: %w", first, len(b), ErrTooSmall)
	}
	for s := 0; s < len(b)/InodeSize; s++ {
		ino := first + uint64(s)
		n, err := DecodeInode(b[s*InodeSize:], ino)
		if errors.Is(err, ErrZeroed) {
			n, err = Inode{Ino: ino}, nil
		}
		if err != nil {
			return err
		}
		if err := fn(s, &n); err != nil {
			return err
		}
	}
	return nil
}
