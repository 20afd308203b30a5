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
//	48     Wn   entries:
//	            version 1, W = 24: piece u32, reserved u32, addr u64, seq u64
//	            version 2, W = 32: piece u32, flags u32 (bit 0: addr and
//	            pair are piece copies), addr u64, seq u64, pair u64
//	bs-4   4    CRC-32C
//
// Version 2 (issue 34) adds the piece copies; this code writes it and
// reads both.
type DirBlock struct {
	UUID    UUID
	CkptSeq uint64
	Index   uint32
	Entries []DirEntry
}

// DirVersion is the directory block version this code writes.
const DirVersion = 2

const (
	dirHeader      = 48
	dirEntrySizeV1 = 24
	dirEntrySize   = 32
	dirFlagCopies  = 1
)

// DirEntriesPerBlock is the capacity of one directory block as written.
func DirEntriesPerBlock(bs int) int { return (bs - dirHeader - 4) / dirEntrySize }

// maxDirEntries is the most entries a block of any version holds (a
// bound for checking a checkpoint's piece count).
func maxDirEntries(bs int) int { return (bs - dirHeader - 4) / dirEntrySizeV1 }

// Encode writes d into the block b.
func (d *DirBlock) Encode(b []byte) error {
	if len(d.Entries) > DirEntriesPerBlock(len(b)) {
		return fmt.Errorf("checkpoint directory: %d entries: %w", len(d.Entries), ErrTooSmall)
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
		if e.Copies {
			le.PutUint32(b[o+4:], dirFlagCopies)
		}
		putRef(b[o+8:], e.At)
		le.PutUint64(b[o+24:], e.Pair)
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
	w, capacity := dirEntrySize, DirEntriesPerBlock(len(b))
	if version == FormatVersion {
		w, capacity = dirEntrySizeV1, maxDirEntries(len(b))
	}
	n := le.Uint32(b[12:])
	if int64(n) > int64(capacity) {
		return nil, fmt.Errorf("checkpoint directory: %d entries: %w", n, ErrCorrupt)
	}
	d := &DirBlock{CkptSeq: le.Uint64(b[32:]), Index: le.Uint32(b[40:]), Entries: make([]DirEntry, n)}
	copy(d.UUID[:], b[16:32])
	for i := range d.Entries {
		o := dirHeader + i*w
		e := DirEntry{Piece: le.Uint32(b[o:]), At: getRef(b[o+8:])}
		if version == DirVersion {
			flags := le.Uint32(b[o+4:])
			if flags&^dirFlagCopies != 0 {
				return nil, fmt.Errorf("checkpoint directory: entry %d flags %#x: %w", i, flags, ErrCorrupt)
			}
			e.Copies, e.Pair = flags&dirFlagCopies != 0, le.Uint64(b[o+24:])
			if e.Pair != 0 && !e.Copies {
				return nil, fmt.Errorf("checkpoint directory: entry %d names a second copy of a log entry: %w", i, ErrCorrupt)
			}
		}
		d.Entries[i] = e
	}
	return d, nil
}
