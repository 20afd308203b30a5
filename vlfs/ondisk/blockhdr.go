package ondisk

import "fmt"

// blockHeader starts every metadata block that is not an inode block
// (indirect, directory and xattr blocks).
//
// Layout (24 bytes, little-endian):
//
//	 0  uint32 magic (one per block kind)
//	 4  uint8  format version
//	 5  uint8  level (indirect blocks: height 1..3; others 0)
//	 6  uint16 entry count (directory and xattr blocks; 0 for indirect)
//	 8  uint64 owner inode number
//	16  uint32 CRC-32C of the whole block with this field zeroed
//	20  uint32 reserved (0)
type blockHeader struct {
	magic uint32
	level uint8
	count uint16
	owner uint64
}

// Wire constants of the block header. Never change.
const (
	BlockHeaderSize = 24
	// BlockCRCOff is where the block's checksum field starts (Checksum
	// with this offset gives the value it holds).
	BlockCRCOff   = 16
	IndirectMagic = 0x42494c56 // "VLIB"
	DirMagic      = 0x42444c56 // "VLDB"
	XattrMagic    = 0x42584c56 // "VLXB"
)

// putHeader writes h into b's first BlockHeaderSize bytes; seal afterwards.
func putHeader(b []byte, h blockHeader) {
	clear(b[:BlockHeaderSize])
	le.PutUint32(b[0:], h.magic)
	b[4] = FormatVersion
	b[5] = h.level
	le.PutUint16(b[6:], h.count)
	le.PutUint64(b[8:], h.owner)
}

// getHeader validates b's size, magic, version, checksum and owner and
// returns the header.
func getHeader(what string, b []byte, magic uint32, owner uint64) (blockHeader, error) {
	return getHeaderVersion(what, b, magic, owner, FormatVersion)
}

// getHeaderVersion is getHeader for a block of layout version version.
func getHeaderVersion(what string, b []byte, magic uint32, owner uint64, version uint8) (blockHeader, error) {
	if len(b) < MinBlockSize {
		return blockHeader{}, fmt.Errorf("%s block of inode %d: %d bytes: %w", what, owner, len(b), ErrTooSmall)
	}
	if allZero(b) {
		return blockHeader{}, fmt.Errorf("%s block of inode %d: %w", what, owner, ErrZeroed)
	}
	h := blockHeader{magic: le.Uint32(b), level: b[5], count: le.Uint16(b[6:]), owner: le.Uint64(b[8:])}
	switch {
	case h.magic != magic || b[4] != version:
		return h, fmt.Errorf("%s block of inode %d: bad magic or version: %w", what, owner, ErrCorrupt)
	case !sealed(b, BlockCRCOff):
		return h, fmt.Errorf("%s block of inode %d: checksum mismatch: %w", what, owner, ErrCorrupt)
	case h.owner != owner:
		return h, fmt.Errorf("%s block of inode %d: owned by inode %d: %w", what, owner, h.owner, ErrCorrupt)
	}
	return h, nil
}
