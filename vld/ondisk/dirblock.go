package ondisk

import (
	"encoding/binary"
	"fmt"
)

// DirMagic starts a checkpoint directory block. Wire constant.
const DirMagic = "VLDCDIR1"

// DirEntry says where the current version of one piece is: in the log
// entry At names, or (Copies) in the two piece copies a checkpoint at rest
// wrote, at At.Addr and Pair (Pair 0: the second copy was lost and is
// written again at the next checkpoint at rest).
type DirEntry struct {
	Piece  uint32
	At     Ref
	Copies bool
	Pair   uint64
}

// DirBlock is one block of a checkpoint's piece directory.
//
//	offset size field
//	0      8    magic "VLDCDIR1"
//	8      2    format version (1 or 2)
//	10     2    reserved
//	12     4    number of entries (n)
//	16     16   volume UUID
//	32     8    checkpoint sequence it belongs to
//	40     4    index of this block in the checkpoint
//	44     4    reserved
//	48     24n  entries: piece u32, pair u32, addr u64, seq u64
//	bs-4   4    CRC-32C
//
// Version 2 (issue 34) adds the piece copies in the same 24 bytes, so a
// block still lists 168 pieces (a moving log window checkpoints every 64
// entries, and 32-byte entries cost vlfs 0.05 blocks per update): the
// top bit of seq (sequence numbers never reach it) says the place names
// piece copies, and pair, reserved in version 1, is the second copy's
// block (a volume of 2^32 blocks or more keeps no copies). This code
// writes version 2 and reads both.
type DirBlock struct {
	UUID    UUID
	CkptSeq uint64
	Index   uint32
	Entries []DirEntry
}

// DirVersion is the directory block version this code writes.
const DirVersion = 2

const (
	dirHeader    = 48
	dirEntrySize = 24
	// dirSeqCopies marks, in an entry's seq (version 2), a place that
	// names piece copies.
	dirSeqCopies = 1 << 63
)

// MaxPairAddr is the largest block a second piece copy may be at (it is
// kept in 32 bits).
const MaxPairAddr = 1<<32 - 1

// DirEntriesPerBlock is the capacity of one directory block.
func DirEntriesPerBlock(bs int) int { return (bs - dirHeader - 4) / dirEntrySize }

// Encode writes d into the block b.
func (d *DirBlock) Encode(b []byte) error {
	if len(d.Entries) > DirEntriesPerBlock(len(b)) {
		return fmt.Errorf("checkpoint directory: %d entries: %w", len(d.Entries), ErrTooSmall)
	}
	for _, e := range d.Entries {
		if e.Pair > MaxPairAddr || e.At.Seq&dirSeqCopies != 0 || e.Pair != 0 && !e.Copies {
			return fmt.Errorf("checkpoint directory: piece %d at %d seq %d, pair %d: %w", e.Piece, e.At.Addr, e.At.Seq, e.Pair, ErrTooSmall)
		}
	}
	clear(b)
	copy(b, DirMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], DirVersion)
	le.PutUint32(b[12:], uint32(len(d.Entries)))
	copy(b[16:32], d.UUID[:])
	le.PutUint64(b[32:], d.CkptSeq)
	le.PutUint32(b[40:], d.Index)
	for i, e := range d.Entries {
		o := dirHeader + i*dirEntrySize
		le.PutUint32(b[o:], e.Piece)
		le.PutUint32(b[o+4:], uint32(e.Pair))
		at := e.At
		if e.Copies {
			at.Seq |= dirSeqCopies
		}
		putRef(b[o+8:], at)
	}
	seal(b)
	return nil
}

// DecodeDirBlock parses a checkpoint directory block of either version.
func DecodeDirBlock(b []byte) (*DirBlock, error) {
	version, err := openVersions(b, DirMagic, "checkpoint directory", FormatVersion, DirVersion)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	n := le.Uint32(b[12:])
	if int64(n) > int64(DirEntriesPerBlock(len(b))) {
		return nil, fmt.Errorf("checkpoint directory: %d entries: %w", n, ErrCorrupt)
	}
	d := &DirBlock{CkptSeq: le.Uint64(b[32:]), Index: le.Uint32(b[40:]), Entries: make([]DirEntry, n)}
	copy(d.UUID[:], b[16:32])
	for i := range d.Entries {
		o := dirHeader + i*dirEntrySize
		e := DirEntry{Piece: le.Uint32(b[o:]), At: getRef(b[o+8:])}
		if version == DirVersion {
			e.Pair = uint64(le.Uint32(b[o+4:]))
			e.Copies = e.At.Seq&dirSeqCopies != 0
			e.At.Seq &^= dirSeqCopies
			if e.Pair != 0 && !e.Copies {
				return nil, fmt.Errorf("checkpoint directory: entry %d names a second copy of a log entry: %w", i, ErrCorrupt)
			}
		}
		d.Entries[i] = e
	}
	return d, nil
}
