package ondisk

import "fmt"

// An indirect block holds the pointers to the blocks one level down in an
// inode's block tree: data blocks (level 1: addresses) or indirect blocks
// (levels 2, 3: addresses, or node numbers under FSVersionNodeMap).
//
// Layout (one file-system block, little-endian):
//
//	 0  block header: magic "VLIB", version, level, count 0, owner inode, CRC
//	24  uint64 addr[PerIndirect(bs)]   (0 = hole)
//
// With 4 KiB blocks an indirect block holds 509 addresses, so the three
// roots of an inode reach 12 + 509 + 509^2 + 509^3 blocks (about 516 GB).

// PerIndirect is the number of addresses an indirect block of bs bytes holds.
func PerIndirect(bs int) int { return max(bs-BlockHeaderSize, 0) / 8 }

// EncodeIndirect writes an indirect block of inode owner at height level
// holding addrs (len(addrs) == PerIndirect(len(b))) into b.
func EncodeIndirect(b []byte, owner uint64, level int, addrs []uint64) {
	putHeader(b, blockHeader{magic: IndirectMagic, level: uint8(level), owner: owner})
	putAddrs(b[BlockHeaderSize:], addrs)
	seal(b, blockCRCOff)
}

// DecodeIndirect parses the indirect block b, which must belong to inode
// owner at height level, into dst (len(dst) == PerIndirect(len(b))).
func DecodeIndirect(b []byte, owner uint64, level int, dst []uint64) error {
	h, err := getHeader("indirect", b, IndirectMagic, owner)
	if err != nil {
		return err
	}
	if int(h.level) != level {
		return fmt.Errorf("indirect block of inode %d: level %d, want %d: %w", owner, h.level, level, ErrCorrupt)
	}
	n := PerIndirect(len(b))
	if len(dst) != n {
		return fmt.Errorf("indirect block of inode %d: destination holds %d, block %d: %w", owner, len(dst), n, ErrTooSmall)
	}
	for i := range dst {
		dst[i] = le.Uint64(b[BlockHeaderSize+8*i:])
	}
	return nil
}
