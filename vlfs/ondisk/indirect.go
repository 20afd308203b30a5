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
//
// A summed indirect block (header version SummedFormatVersion,
// FSVersionSums) holds n = PerIndirectSummed(bs) pointers and, at level 1,
// the DataSum of each block they name (0 above level 1 and for holes):
//
//	 0       block header (version 2)
//	24       uint64 addr[n]
//	24+8n    uint32 sum[n]
//	24+12n   zero padding to the block's end
//
// With 4 KiB blocks n is 339: 8 + 339 + 339^2 + 339^3 blocks (about 159 GB).

// PerIndirect is the number of addresses an indirect block of bs bytes holds.
func PerIndirect(bs int) int { return max(bs-BlockHeaderSize, 0) / 8 }

// PerIndirectSummed is the number of pointers a summed indirect block of
// bs bytes holds.
func PerIndirectSummed(bs int) int { return max(bs-BlockHeaderSize, 0) / 12 }

// PerIndirectFor is PerIndirect or PerIndirectSummed.
func PerIndirectFor(bs int, summed bool) int {
	if summed {
		return PerIndirectSummed(bs)
	}
	return PerIndirect(bs)
}

// EncodeIndirect writes an indirect block of inode owner at height level
// holding addrs into b. With sums nil it is a version-1 block
// (len(addrs) == PerIndirect(len(b))); otherwise a summed one
// (len(addrs) == len(sums) == PerIndirectSummed(len(b))).
func EncodeIndirect(b []byte, owner uint64, level int, addrs []uint64, sums []uint32) {
	putHeader(b, blockHeader{magic: IndirectMagic, level: uint8(level), owner: owner})
	if sums != nil {
		b[4] = SummedFormatVersion
	}
	putPointers(b[BlockHeaderSize:], PerIndirectSummed(len(b)), addrs, sums)
	seal(b, BlockCRCOff)
}

// DecodeIndirect parses the indirect block b, which must belong to inode
// owner at height level, into dst, and, when sums is not nil, its sums
// into sums: a version-1 block when sums is nil (len(dst) ==
// PerIndirect(len(b))), a summed one otherwise (len(dst) == len(sums) ==
// PerIndirectSummed(len(b))).
func DecodeIndirect(b []byte, owner uint64, level int, dst []uint64, sums []uint32) error {
	want := uint8(FormatVersion)
	if sums != nil {
		want = SummedFormatVersion
	}
	h, err := getHeaderVersion("indirect", b, IndirectMagic, owner, want)
	if err != nil {
		return err
	}
	if int(h.level) != level {
		return fmt.Errorf("indirect block of inode %d: level %d, want %d: %w", owner, h.level, level, ErrCorrupt)
	}
	n := PerIndirectFor(len(b), sums != nil)
	if len(dst) != n || (sums != nil && len(sums) != n) {
		return fmt.Errorf("indirect block of inode %d: destination holds %d, block %d: %w", owner, len(dst), n, ErrTooSmall)
	}
	getPointers(b[BlockHeaderSize:], n, dst, sums)
	return nil
}
