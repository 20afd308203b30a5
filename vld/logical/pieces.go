package logical

import "github.com/vlfs/vlfs/vld"

// Map pieces (issue 33). The map is cut into pieces, each the payload of
// one virtual-log entry. The paper writes "the piece of the table that
// contains the new map entry to a free sector near the disk head": a
// sector, not a block. With the volume's sector-granular entries a piece
// of SectorPieceEntries map entries (256 bytes) is a one-sector entry, so
// a synchronous update transfers its data block and one sector (9
// sectors), where a block piece (768 entries, 3 KiB, mostly non-zero on a
// filled disk) takes 7 sectors more. Smaller pieces mean more of them:
// the checkpoint directory lists each (24 bytes), and each current
// version owns a block (a sector entry does not share its block), so a
// disk exports 64/67 of its usable blocks where block pieces export
// 768/771.
//
// Block pieces stay the default: FormatWith asks for sector pieces. With
// them the profiled head model (bench headmodels, 1,000 updates) kept
// less of the oracle's gain at 80 % than with block pieces (0.74-0.81 of
// it over three seeds, against 0.85-0.88; issue 8 asks 0.8), though more
// at 50 % (0.94 against 0.83). A likely part: the profile prices skips
// from the end of the last request in whole 4 KiB steps, and a request
// that ends with a one-sector entry leaves the head seven sectors before
// that end. Pricing the skip at the nearest step made two seeds of three
// worse (0.60-0.64), at the step below changed nothing; a profile
// measured in sector steps would see it. Until then every disk does not
// get them.

// SectorPieceEntries is the map entries of a sector piece: 256 bytes, so
// that its log entry (88-byte header, a few pointers and covers, CRC) fits
// one 512-byte sector.
const SectorPieceEntries = 64

// maxPieceDirBlocks bounds the checkpoint directory a disk's pieces may
// need: a checkpoint that names the blocks it keeps
// (checkpoint version 4) fits 167 with their copies.
const maxPieceDirBlocks = 160

// BlockPieceEntries is the map entries of a block piece: the volume's
// whole payload (3 KiB of a 4 KiB block), as every disk has unless it was
// formatted with sector pieces.
func BlockPieceEntries(bs int) int { return vld.PiecePayloadSize(bs) / 4 }

// MaxPieces is how many pieces a disk of block size bs may have: as many
// as its checkpoint directory can list within maxPieceDirBlocks.
func MaxPieces(bs int) int64 { return int64(maxPieceDirBlocks * vld.DirPiecesPerBlock(bs)) }

// maxDirtyPieces bounds the pieces an unsynced write may leave dirty on a
// disk with sector pieces: once a write makes more, they are committed at
// once (a disk may make writes durable before it is asked). One commit's
// entries are placed in the log window, which on a nearly full disk holds
// a few hundred free blocks: a fill of a sector-piece disk to 95 %
// otherwise left 435 pieces dirty for its Sync, which found no room for
// them. Block pieces cover 12 times as much each and keep committing only
// when asked, as before (a 128 MiB fill to 80 % dirties 34 of them, and
// committing early changed where bench updates' later writes went).
const maxDirtyPieces = 32

// commitEarlyLocked commits the dirty pieces of a sector-piece disk once
// there are more than maxDirtyPieces.
func (d *Disk) commitEarlyLocked() error {
	if d.per >= int64(BlockPieceEntries(d.v.BlockSize())) || len(d.dirty) <= maxDirtyPieces {
		return nil
	}
	return d.commitDirtyLocked()
}
