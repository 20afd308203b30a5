package ondisk

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// TailMagic starts the tail record. Wire constant.
const TailMagic = "VLDTAIL1"

// Tail is the record written at TailAddr on a clean shutdown: where the
// virtual log's root is. It is cleared (zeroed) when the volume is opened
// for writing, so that a later crash cannot be mistaken for a clean stop.
//
//	offset size field
//	0      8    magic "VLDTAIL1"
//	8      2    format version
//	10     6    reserved
//	16     16   volume UUID
//	32     8    checkpoint sequence the log continues
//	40     16   root entry (addr, seq); zero if the log is empty
//	56     8    next sequence number to use
//	64     8    simulated clock at shutdown (float64 ms bits)
//	72     4    flags: bit 0 = the piece digest below is set
//	76     4    pieces current at shutdown
//	80     4    PieceDigest of them
//	bs-4   4    CRC-32C
//
// The piece digest lets a recovery after a clean stop tell a live log
// entry that does not read (damage: the state at the stop is not what the
// walk rebuilt) from one the running volume recycled (which a recovery
// must otherwise assume). Tails written before it have flags 0.
type Tail struct {
	UUID    UUID
	CkptSeq uint64
	Root    Ref
	NextSeq uint64
	SimMs   uint64
	// HasDigest: Pieces and Digest were recorded.
	HasDigest bool
	Pieces    uint32
	Digest    uint32
}

// Encode writes t into the block b.
func (t *Tail) Encode(b []byte) {
	clear(b)
	copy(b, TailMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], FormatVersion)
	copy(b[16:32], t.UUID[:])
	le.PutUint64(b[32:], t.CkptSeq)
	putRef(b[40:], t.Root)
	le.PutUint64(b[56:], t.NextSeq)
	le.PutUint64(b[64:], t.SimMs)
	if t.HasDigest {
		le.PutUint32(b[72:], 1)
		le.PutUint32(b[76:], t.Pieces)
		le.PutUint32(b[80:], t.Digest)
	}
	seal(b)
}

// DecodeTail parses a tail record.
func DecodeTail(b []byte) (*Tail, error) {
	if err := open(b, TailMagic, "tail record"); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	t := &Tail{CkptSeq: le.Uint64(b[32:]), Root: getRef(b[40:]), NextSeq: le.Uint64(b[56:]), SimMs: le.Uint64(b[64:])}
	if le.Uint32(b[72:])&1 != 0 {
		t.HasDigest, t.Pieces, t.Digest = true, le.Uint32(b[76:]), le.Uint32(b[80:])
	}
	copy(t.UUID[:], b[16:32])
	if t.NextSeq <= t.Root.Seq {
		return nil, fmt.Errorf("tail record: next seq %d <= root seq %d: %w", t.NextSeq, t.Root.Seq, ErrCorrupt)
	}
	return t, nil
}

// PieceDigest is the CRC-32C of the current version of every piece:
// (piece, sequence, address) for each, in piece order; refs must be sorted
// by piece.
func PieceDigest(pieces []uint32, refs []Ref) uint32 {
	var b [20]byte
	c := uint32(0)
	for i, p := range pieces {
		binary.LittleEndian.PutUint32(b[0:], p)
		binary.LittleEndian.PutUint64(b[4:], refs[i].Seq)
		binary.LittleEndian.PutUint64(b[12:], refs[i].Addr)
		c = crc32.Update(c, castagnoli, b[:])
	}
	return c
}
