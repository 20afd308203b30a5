package ondisk

import (
	"fmt"
	"math/bits"
)

// Superblock is vlfs's own file-system-level data. It lives in the volume's
// AppData (the volume keeps it in its superblock), never in a client block.
//
// Layout (48 bytes, little-endian):
//
//	 0  [8]byte magic "VLFSSUPR"
//	 8  uint32  file-system version (FSVersionAddr .. FSVersionUnwritten)
//	12  uint32  block size (bytes; power of two, 512..65536)
//	16  uint32  inode size (bytes; InodeSize)
//	20  uint32  flags (0; reserved)
//	24  uint64  root inode number
//	32  int64   creation time (Unix nanoseconds)
//	40  uint32  CRC-32C of the 48 bytes with this field zeroed
//	44  uint32  reserved (0)
type Superblock struct {
	Version   uint32
	BlockSize uint32
	InodeSize uint32
	RootIno   uint64
	Created   int64
}

// Wire constants of the superblock. Never change.
const (
	SuperblockSize  = 48
	SuperblockMagic = "VLFSSUPR"
	// SuperblockCRCOff is where the superblock's checksum field starts
	// (Checksum with this offset gives the value it holds).
	SuperblockCRCOff = 40
)

// FormatVersion is the layout version every record carries (inodes, the
// block headers, inode-map pieces). Bump it (and keep reading the old one)
// for any change to any structure's layout.
const FormatVersion = 1

// File-system versions, in the superblock: what the records' pointer fields
// mean. Both are read and written; mkfs makes FSVersion unless asked.
const (
	// FSVersionAddr: an inode's indirect roots and the pointers of
	// indirect blocks above height 1 are block addresses. Moving an
	// indirect block rewrites its parent, up to the inode (a 4 KiB
	// overwrite deep in a large file commits five blocks).
	FSVersionAddr = 1
	// FSVersionNodeMap: they are node numbers, which the inode map maps
	// to addresses in pieces from NodePieceBase (F2FS's node address
	// table). Moving an indirect block changes one map entry and nothing
	// above it (that overwrite commits three blocks: data, leaf, log
	// entry).
	FSVersionNodeMap = 2
	// FSVersionRecords: version 2, and a synchronous update of regular
	// files commits its data and one log record (record.go) instead of
	// the indirect blocks, inode blocks and map pieces that point at the
	// data; a later full commit writes those, and recovery replays the
	// records made since it.
	FSVersionRecords = 3
	// FSVersionSums: version 3, and every pointer to a data block (an
	// inode's direct pointers, an indirect block's, a log record's)
	// carries the block's CRC-32C (datasum.go), so that a damaged or
	// stale data block reads as an error, never as wrong bytes. An inode
	// then has 8 direct pointers and an indirect block 339 (4 KiB).
	FSVersionSums = 4
	// FSVersionUnwritten: version 4, and a regular file's data pointer may
	// be UnwrittenAddr: a block fallocate reserved that reads as zeros and
	// was never written (ext4's unwritten extents). A commit then writes
	// no zero blocks for fallocate; the mount counts these pointers and
	// keeps that much space for them.
	FSVersionUnwritten = 5
	// FSVersion is what mkfs makes by default.
	FSVersion = FSVersionUnwritten
)

// UnwrittenAddr in a data pointer (FSVersionUnwritten) marks a reserved,
// never written block that reads as zeros. It is the address of a
// volume's first checkpoint slot, which no file block can have.
const UnwrittenAddr = 1

// Block-size bounds accepted by the format.
const (
	MinBlockSize = 512
	MaxBlockSize = 65536
)

// Encode returns the superblock's bytes.
func (s *Superblock) Encode() []byte {
	b := make([]byte, SuperblockSize)
	copy(b, SuperblockMagic)
	le.PutUint32(b[8:], s.Version)
	le.PutUint32(b[12:], s.BlockSize)
	le.PutUint32(b[16:], s.InodeSize)
	le.PutUint64(b[24:], s.RootIno)
	le.PutUint64(b[32:], uint64(s.Created))
	seal(b, SuperblockCRCOff)
	return b
}

// DecodeSuperblock parses and validates b (at least SuperblockSize bytes;
// the rest is ignored, since AppData may be padded).
func DecodeSuperblock(b []byte) (Superblock, error) {
	if len(b) < SuperblockSize {
		return Superblock{}, fmt.Errorf("superblock: %d bytes: %w", len(b), ErrTooSmall)
	}
	b = b[:SuperblockSize]
	if allZero(b) {
		return Superblock{}, fmt.Errorf("superblock: %w", ErrZeroed)
	}
	if string(b[:8]) != SuperblockMagic {
		return Superblock{}, fmt.Errorf("superblock: bad magic %q: %w", b[:8], ErrCorrupt)
	}
	if !sealed(b, SuperblockCRCOff) {
		return Superblock{}, fmt.Errorf("superblock: checksum mismatch: %w", ErrCorrupt)
	}
	s := Superblock{
		Version:   le.Uint32(b[8:]),
		BlockSize: le.Uint32(b[12:]),
		InodeSize: le.Uint32(b[16:]),
		RootIno:   le.Uint64(b[24:]),
		Created:   int64(le.Uint64(b[32:])),
	}
	return s, s.Validate()
}

// Validate checks the fields a decoder cannot check by checksum alone.
func (s *Superblock) Validate() error {
	switch {
	case s.Version < FSVersionAddr || s.Version > FSVersionUnwritten:
		return fmt.Errorf("superblock: file-system version %d (this vlfs reads %d to %d): %w", s.Version, FSVersionAddr, FSVersionUnwritten, ErrCorrupt)
	case !ValidBlockSize(int(s.BlockSize)):
		return fmt.Errorf("superblock: block size %d: %w", s.BlockSize, ErrCorrupt)
	case s.InodeSize != InodeSize:
		return fmt.Errorf("superblock: inode size %d: %w", s.InodeSize, ErrCorrupt)
	case s.RootIno == 0:
		return fmt.Errorf("superblock: root inode 0: %w", ErrCorrupt)
	}
	return nil
}

// ValidBlockSize reports whether bs is a block size the format supports.
func ValidBlockSize(bs int) bool {
	return bs >= MinBlockSize && bs <= MaxBlockSize && bits.OnesCount(uint(bs)) == 1
}
