package ondisk

import (
	"encoding/binary"
	"fmt"
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
//	bs-4   4    CRC-32C
type Tail struct {
	UUID    UUID
	CkptSeq uint64
	Root    Ref
	NextSeq uint64
	SimMs   uint64
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
	seal(b)
}

// DecodeTail parses a tail record.
func DecodeTail(b []byte) (*Tail, error) {
	if err := open(b, TailMagic, "tail record"); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	t := &Tail{CkptSeq: le.Uint64(b[32:]), Root: getRef(b[40:]), NextSeq: le.Uint64(b[56:]), SimMs: le.Uint64(b[64:])}
	copy(t.UUID[:], b[16:32])
	if t.NextSeq <= t.Root.Seq {
		return nil, fmt.Errorf("tail record: next seq %d <= root seq %d: %w", t.NextSeq, t.Root.Seq, ErrCorrupt)
	}
	return t, nil
}
