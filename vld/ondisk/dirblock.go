package ondisk

import (
	"encoding/binary"
	"fmt"
)

// DirMagic starts a checkpoint directory block. Wire constant.
const DirMagic = "VLDCDIR1"

// DirEntry says where the current version of one piece is.
type DirEntry struct {
	Piece uint32
	At    Ref
}

// DirBlock is one block of a checkpoint's piece directory.
//
//	offset size field
//	0      8    magic "VLDCDIR1"
//	8      2    format version
//	10     2    reserved
//	12     4    number of entries (n)
//	16     16   volume UUID
//	32     8    checkpoint sequence it belongs to
//	40     4    index of this block in the checkpoint
//	44     4    reserved
//	48     24n  entries: piece u32, reserved u32, addr u64, seq u64
//	bs-4   4    CRC-32C
type DirBlock struct {
	UUID    UUID
	CkptSeq uint64
	Index   uint32
	Entries []DirEntry
}

const (
	dirHeader    = 48
	dirEntrySize = 24
)

// DirEntriesPerBlock is the capacity of one directory block.
func DirEntriesPerBlock(bs int) int { return (bs - dirHeader - 4) / dirEntrySize }

// Encode writes d into the block b.
func (d *DirBlock) Encode(b []byte) error {
	if len(d.Entries) > DirEntriesPerBlock(len(b)) {
		return fmt.Errorf("checkpoint directory: %d entries: %w", len(d.Entries), ErrTooSmall)
	}
	clear(b)
	copy(b, DirMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], FormatVersion)
	le.PutUint32(b[12:], uint32(len(d.Entries)))
	copy(b[16:32], d.UUID[:])
	le.PutUint64(b[32:], d.CkptSeq)
	le.PutUint32(b[40:], d.Index)
	for i, e := range d.Entries {
		o := dirHeader + i*dirEntrySize
		le.PutUint32(b[o:], e.Piece)
		putRef(b[o+8:], e.At)
	}
	seal(b)
	return nil
}

// DecodeDirBlock parses a checkpoint directory block.
func DecodeDirBlock(b []byte) (*DirBlock, error) {
	if err := open(b, DirMagic, "checkpoint directory"); err != nil {
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
		d.Entries[i] = DirEntry{Piece: le.Uint32(b[o:]), At: getRef(b[o+8:])}
	}
	return d, nil
}
