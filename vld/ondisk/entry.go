package ondisk

import (
	"encoding/binary"
	"fmt"
)

// EntryMagic starts a virtual-log entry. Wire constant.
const EntryMagic = "VLDLOGE1"

// MaxPtrs is the most back pointers one entry carries (the tree's fan-out).
const MaxPtrs = 16

// Cover is a block written in the same commit group as an entry, with the
// CRC-32C of its contents, so that recovery can tell whether the newest group
// landed completely.
type Cover struct {
	Addr uint64
	CRC  uint32
}

// Entry is one virtual-log entry: the new version of one piece (a slice of
// the client's map), plus the back pointers that keep every live entry
// reachable from the log's root (Figure 3b of the virtual-log paper).
// Entries committed together form a group with consecutive sequence numbers.
//
//	offset size field
//	0      8    magic "VLDLOGE1"
//	8      2    format version
//	10     2    number of back pointers (p <= 16)
//	12     2    number of covers (c)
//	14     2    flags (EntryHasLive); zero in entries written before them
//	16     16   volume UUID
//	32     8    sequence number
//	40     8    group: sequence number of its first entry
//	48     4    group: number of entries
//	52     4    piece number
//	56     16   root before this group (addr, seq); zero if none
//	72     8    live-set digest after the group (with EntryHasLive)
//	80     16p  back pointers (addr u64, seq u64)
//	..     12c  covers (addr u64, crc u32)
//	bs-4-P P    payload (P = PayloadSize(bs))
//	bs-4   4    CRC-32C
type Entry struct {
	UUID       UUID
	Seq        uint64
	GroupSeq   uint64
	GroupCount uint32
	Piece      uint32
	PrevRoot   Ref
	Ptrs       []Ref
	Covers     []Cover
	Payload    []byte // exactly PayloadSize(bs) bytes after decoding
	// HasLive says Live is set: the LiveDigest of every piece's current
	// version once this entry's group is applied, so that recovery can
	// tell a live entry that does not read from a recycled one.
	HasLive bool
	Live    uint64
}

// EntryHasLive is the entry flag saying the live-set digest is set.
const EntryHasLive = 1 << 0

// LiveHash is one piece version's share of a live-set digest: the digest
// of a set of versions is the XOR of their hashes, so that a commit updates
// it in O(1) per piece (out with the old version, in with the new). A
// splitmix64 finaliser over the piece number and sequence number. Wire
// definition.
func LiveHash(piece uint32, seq uint64) uint64 {
	x := seq ^ uint64(piece)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

const (
	entryHeader = 80
	coverSize   = 12
)

// PayloadSize is the piece payload carried by one entry of block size bs.
func PayloadSize(bs int) int { return bs * 3 / 4 }

// MaxCovers is how many covers fit in an entry that has nptrs pointers.
func MaxCovers(bs, nptrs int) int {
	return (bs - 4 - PayloadSize(bs) - entryHeader - nptrs*refSize) / coverSize
}

// Encode writes e into the block b.
func (e *Entry) Encode(b []byte) error {
	bs := len(b)
	if len(e.Ptrs) > MaxPtrs || len(e.Covers) > MaxCovers(bs, len(e.Ptrs)) || len(e.Payload) > PayloadSize(bs) {
		return fmt.Errorf("log entry: %d pointers, %d covers, %d payload bytes do not fit %d: %w",
			len(e.Ptrs), len(e.Covers), len(e.Payload), bs, ErrTooSmall)
	}
	clear(b)
	copy(b, EntryMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], FormatVersion)
	le.PutUint16(b[10:], uint16(len(e.Ptrs)))
	le.PutUint16(b[12:], uint16(len(e.Covers)))
	if e.HasLive {
		le.PutUint16(b[14:], EntryHasLive)
		le.PutUint64(b[72:], e.Live)
	}
	copy(b[16:32], e.UUID[:])
	le.PutUint64(b[32:], e.Seq)
	le.PutUint64(b[40:], e.GroupSeq)
	le.PutUint32(b[48:], e.GroupCount)
	le.PutUint32(b[52:], e.Piece)
	putRef(b[56:], e.PrevRoot)
	o := entryHeader
	for _, p := range e.Ptrs {
		putRef(b[o:], p)
		o += refSize
	}
	for _, c := range e.Covers {
		le.PutUint64(b[o:], c.Addr)
		le.PutUint32(b[o+8:], c.CRC)
		o += coverSize
	}
	copy(b[bs-4-PayloadSize(bs):], e.Payload)
	seal(b)
	return nil
}

// DecodeEntry parses a virtual-log entry.
func DecodeEntry(b []byte) (*Entry, error) {
	if err := open(b, EntryMagic, "log entry"); err != nil {
		return nil, err
	}
	bs := len(b)
	le := binary.LittleEndian
	np, nc := int(le.Uint16(b[10:])), int(le.Uint16(b[12:]))
	if np > MaxPtrs || nc > MaxCovers(bs, np) {
		return nil, fmt.Errorf("log entry: %d pointers, %d covers: %w", np, nc, ErrCorrupt)
	}
	flags := le.Uint16(b[14:])
	if flags&^EntryHasLive != 0 {
		return nil, fmt.Errorf("log entry: unknown flags %#x: %w", flags, ErrCorrupt)
	}
	e := &Entry{
		Seq: le.Uint64(b[32:]), GroupSeq: le.Uint64(b[40:]), GroupCount: le.Uint32(b[48:]),
		Piece: le.Uint32(b[52:]), PrevRoot: getRef(b[56:]),
		HasLive: flags&EntryHasLive != 0,
	}
	if e.HasLive {
		e.Live = le.Uint64(b[72:]) // else reserved: whatever it holds means nothing
	}
	copy(e.UUID[:], b[16:32])
	if e.GroupCount == 0 || e.GroupSeq > e.Seq || e.Seq-e.GroupSeq >= uint64(e.GroupCount) {
		return nil, fmt.Errorf("log entry seq %d: group %d+%d: %w", e.Seq, e.GroupSeq, e.GroupCount, ErrCorrupt)
	}
	if e.PrevRoot.Seq >= e.GroupSeq && !e.PrevRoot.IsZero() {
		return nil, fmt.Errorf("log entry seq %d: previous root seq %d not older: %w", e.Seq, e.PrevRoot.Seq, ErrCorrupt)
	}
	o := entryHeader
	e.Ptrs = make([]Ref, np)
	for i := range e.Ptrs {
		e.Ptrs[i] = getRef(b[o:])
		if e.Ptrs[i].Seq >= e.Seq {
			return nil, fmt.Errorf("log entry seq %d: pointer to seq %d: %w", e.Seq, e.Ptrs[i].Seq, ErrCorrupt)
		}
		o += refSize
	}
	e.Covers = make([]Cover, nc)
	for i := range e.Covers {
		e.Covers[i] = Cover{Addr: le.Uint64(b[o:]), CRC: le.Uint32(b[o+8:])}
		o += coverSize
	}
	e.Payload = append([]byte(nil), b[bs-4-PayloadSize(bs):bs-4]...)
	return e, nil
}
