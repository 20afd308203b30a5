package ondisk

import "fmt"

// An inode-map piece is one entry of the virtual log: the physical
// addresses of a run of inode blocks. Piece p maps inode blocks
// p*PerPiece .. (p+1)*PerPiece-1; the volume stores the payloads and
// returns the latest committed version of every piece at open.
//
// Under FSVersionNodeMap the map also names indirect blocks: piece
// NodePieceBase+q maps node numbers q*PerPiece .. (q+1)*PerPiece-1 to the
// addresses of the indirect blocks they number (node 0 is never used).
//
// Layout (the volume's piece payload size, little-endian):
//
//	 0  uint32 magic "VLIM"
//	 4  uint8  format version
//	 5  [3]byte reserved (0)
//	 8  uint32 piece number
//	12  uint32 number of addresses (PerPiece(payload size))
//	16  uint32 CRC-32C of the payload with this field zeroed
//	20  uint32 reserved (0)
//	24  uint64 addr[number]   address of each inode block (0 = no block)
//
// A summed piece (version SummedFormatVersion, FSVersionSums) follows the
// addresses with the DataSum of each block they name, so that a reader
// knows what an inode block or an indirect block must hold before reading
// it (a stale older copy, valid in itself, fails):
//
//	24        uint64 addr[number]   (number = PerPieceSummed(payload size))
//	24+8n     uint32 sum[number]    (0 = no block)

// Wire constants of inode-map pieces. Never change.
const (
	PieceMagic      = 0x4d494c56 // "VLIM"
	PieceHeaderSize = 24
	// PieceCRCOff is where the piece's checksum field starts (Checksum
	// with this offset gives the value it holds).
	PieceCRCOff = 16
)

// NodePieceBase is the first piece number of the node part of the map.
// Inode-block pieces stay below it: an inode block per piece number would
// take 2^31 x PerPiece blocks to reach it.
const NodePieceBase = 1 << 31

// PerPiece is the number of inode-block addresses a payload of n bytes holds.
func PerPiece(n int) int { return max(n-PieceHeaderSize, 0) / 8 }

// PerPieceSummed is the number of entries a summed payload of n bytes holds.
func PerPieceSummed(n int) int { return max(n-PieceHeaderSize, 0) / 12 }

// PerPieceFor is PerPiece or PerPieceSummed.
func PerPieceFor(n int, summed bool) int {
	if summed {
		return PerPieceSummed(n)
	}
	return PerPiece(n)
}

// EncodePiece writes piece number index holding addrs into b (the whole
// payload): a version-1 piece when sums is nil (len(addrs) ==
// PerPiece(len(b))), a summed one otherwise (len(addrs) == len(sums) ==
// PerPieceSummed(len(b))).
func EncodePiece(b []byte, index uint32, addrs []uint64, sums []uint32) {
	clear(b[:PieceHeaderSize])
	le.PutUint32(b[0:], PieceMagic)
	b[4] = FormatVersion
	le.PutUint32(b[8:], index)
	n := PerPieceFor(len(b), sums != nil)
	le.PutUint32(b[12:], uint32(n))
	if sums != nil {
		b[4] = SummedFormatVersion
	}
	putPointers(b[PieceHeaderSize:], n, addrs, sums)
	seal(b, PieceCRCOff)
}

// DecodePiece parses the payload b, which must be piece number index, into
// dst and, when sums is not nil, its sums into sums: a version-1 piece when
// sums is nil (len(dst) == PerPiece(len(b))), a summed one otherwise
// (len(dst) == len(sums) == PerPieceSummed(len(b))).
func DecodePiece(b []byte, index uint32, dst []uint64, sums []uint32) error {
	if len(b) < PieceHeaderSize+8 {
		return fmt.Errorf("inode-map piece %d: %d bytes: %w", index, len(b), ErrTooSmall)
	}
	if allZero(b) {
		return fmt.Errorf("inode-map piece %d: %w", index, ErrZeroed)
	}
	n := PerPieceFor(len(b), sums != nil)
	want := byte(FormatVersion)
	if sums != nil {
		want = SummedFormatVersion
	}
	switch {
	case le.Uint32(b) != PieceMagic || b[4] != want:
		return fmt.Errorf("inode-map piece %d: bad magic or version: %w", index, ErrCorrupt)
	case !sealed(b, PieceCRCOff):
		return fmt.Errorf("inode-map piece %d: checksum mismatch: %w", index, ErrCorrupt)
	case le.Uint32(b[8:]) != index:
		return fmt.Errorf("inode-map piece %d: record says piece %d: %w", index, le.Uint32(b[8:]), ErrCorrupt)
	case int(le.Uint32(b[12:])) != n:
		return fmt.Errorf("inode-map piece %d: %d addresses, payload holds %d: %w", index, le.Uint32(b[12:]), n, ErrCorrupt)
	case len(dst) != n || sums != nil && len(sums) != n:
		return fmt.Errorf("inode-map piece %d: destination holds %d, piece %d: %w", index, len(dst), n, ErrTooSmall)
	}
	getPointers(b[PieceHeaderSize:], n, dst, sums)
	return nil
}
