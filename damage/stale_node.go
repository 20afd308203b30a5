package damage

import (
	"fmt"

	"github.com/vlfs/vlfs/vlfs"
	vondisk "github.com/vlfs/vlfs/vlfs/ondisk"
)

// nodeTarget is the logical block whose write makes the file system write
// indirect block b (holding raw) anew, and whether that write adds a block
// (grow) rather than overwriting one. A leaf names its data blocks by
// address (and on version 4 by sum): overwriting one under it changes it.
// A node above the leaves names its children by node number from version 2
// on, which an overwrite under it leaves as they are: only a new child
// changes it, so the write goes to a hole under one of its free slots
// (the file may grow; the files after the change are what the case
// compares with). A node with no free slot is overwritten under, which
// changes it only on version 1 (addresses), and the case fails saying so.
func nodeTarget(fs *vlfs.FS, b block, raw []byte, bs int64) (k int, lbn int64, grow bool, err error) {
	k, under, err := nodeAndBlockUnder(fs, b, bs)
	if err != nil {
		return 0, 0, false, err
	}
	level := int(raw[5]) // the block header's level (vlfs/ondisk/blockhdr.go)
	if level <= 1 {
		return k, under, false, nil
	}
	summed := fs.Superblock().Version >= vondisk.FSVersionSums
	per := uint64(vondisk.PerIndirectFor(int(bs), summed))
	ptrs := make([]uint64, per)
	var sums []uint32
	if summed {
		sums = make([]uint32, per)
	}
	if err := vondisk.DecodeIndirect(raw, uint64(b.ino), level, ptrs, sums); err != nil {
		return 0, 0, false, fmt.Errorf("decoding indirect block %d: %w", b.addr, err)
	}
	free := -1
	for s, p := range ptrs {
		if p == 0 {
			free = s
			break
		}
	}
	if free < 0 {
		return k, under, false, nil
	}
	// The file's block tree (vlfs/bmap.go): the direct blocks, then root r
	// of height r+1 covering per^(r+1) blocks. The node lies in the root
	// that covers the block under it, at a multiple of its own span.
	span := func(h int) uint64 {
		s := uint64(1)
		for range h {
			s *= per
		}
		return s
	}
	base := uint64(vondisk.NumDirectFor(summed))
	for r := 0; r < vondisk.NumIndirect; r++ {
		if end := base + span(r+1); uint64(under) < end {
			break
		}
		base += span(r + 1)
	}
	node := base + (uint64(under)-base)/span(level)*span(level)
	return k, int64(node + uint64(free)*span(level-1)), true, nil
}

// grow writes a few bytes at block lbn of ino, a hole: a new data block.
func grow(fs *vlfs.FS, ino vlfs.Ino, off int64) error {
	if _, err := fs.Write(ino, off, []byte("a block in a new subtree")); err != nil {
		return fmt.Errorf("writing inode %d at %d: %w", ino, off, err)
	}
	return nil
}
