package ondisk

import (
	"encoding/binary"
	"fmt"
)

// PieceCopyMagic starts a piece copy. Wire constant.
const PieceCopyMagic = "VLDPCPY1"

// PieceCopy is one of the two copies of a piece's version that a
// checkpoint at rest writes (issue 34: a log entry has one copy, so a
// damaged one lost what it held). The checkpoint directory names both
// copies in place of the entry. A copy is not a log entry: its own magic
// keeps the window scan of crash recovery from ever taking it for one,
// and it carries no back pointers or covers, only the payload.
//
//	offset size field
//	0      8    magic "VLDPCPY1"
//	8      2    format version
//	10     2    copy index (0 or 1)
//	12     4    piece number
//	16     16   volume UUID
//	32     8    sequence number of the version copied
//	40     40   reserved
//	80     P    payload (P = PayloadSize(bs), as in an entry)
//	..          zero
//	bs-4   4    CRC-32C
type PieceCopy struct {
	UUID    UUID
	Piece   uint32
	Seq     uint64
	Index   uint16
	Payload []byte // exactly PayloadSize(bs) bytes after decoding
}

const pieceCopyHeader = 80

// Encode writes c into the block b.
func (c *PieceCopy) Encode(b []byte) error {
	if len(c.Payload) > PayloadSize(len(b)) || c.Index > 1 {
		return fmt.Errorf("piece copy: %d payload bytes, index %d, in %d: %w", len(c.Payload), c.Index, len(b), ErrTooSmall)
	}
	clear(b)
	copy(b, PieceCopyMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], FormatVersion)
	le.PutUint16(b[10:], c.Index)
	le.PutUint32(b[12:], c.Piece)
	copy(b[16:32], c.UUID[:])
	le.PutUint64(b[32:], c.Seq)
	copy(b[pieceCopyHeader:], c.Payload)
	seal(b)
	return nil
}

// DecodePieceCopy parses a piece copy.
func DecodePieceCopy(b []byte) (*PieceCopy, error) {
	if err := open(b, PieceCopyMagic, "piece copy"); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	c := &PieceCopy{Index: le.Uint16(b[10:]), Piece: le.Uint32(b[12:]), Seq: le.Uint64(b[32:])}
	if c.Index > 1 {
		return nil, fmt.Errorf("piece copy: index %d: %w", c.Index, ErrCorrupt)
	}
	copy(c.UUID[:], b[16:32])
	c.Payload = append([]byte(nil), b[pieceCopyHeader:pieceCopyHeader+PayloadSize(len(b))]...)
	return c, nil
}
