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
// Two layouts. Version 1 fills its block:
//
//	offset size field
//	0      8    magic "VLDLOGE1"
//	8      2    format version (1)
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
//
// Version 2 (EntryVersionSectors, issue 33) takes only the 512-byte sectors
// it needs from the start of its block, so that a small piece (a file
// system's log record) costs a sector's transfer, not a block's. The
// payload's trailing zeros are not stored; the sectors after the entry's
// are not its own and may hold anything:
//
//	offset size field
//	0      80   as version 1, with version 2 at 8
//	80     4    payload bytes stored (L <= PayloadSize(bs))
//	84     2    length of the entry in sectors (k, 512k <= bs)
//	86     2    reserved (0)
//	88     16p  back pointers
//	..     12c  covers
//	..     L    payload; the rest of PayloadSize(bs) is zero
//	512k-4 4    CRC-32C of [0, 512k-4)
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
	// Sectors selects version 2, the sector-granular layout.
	Sectors bool
}

// EntryVersionSectors is the version of sector-granular entries.
const EntryVersionSectors = 2

// EntrySector is the unit of a version-2 entry's length.
const EntrySector = 512

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
	entryHeader        = 80
	entryHeaderSectors = 88
	coverSize          = 12
)

// PayloadSize is the piece payload carried by one entry of block size bs.
func PayloadSize(bs int) int { return bs * 3 / 4 }

// MaxCovers is how many covers fit in a version-1 entry that has nptrs
// pointers.
func MaxCovers(bs, nptrs int) int {
	return (bs - 4 - PayloadSize(bs) - entryHeader - nptrs*refSize) / coverSize
}

// MaxCoversSectors is MaxCovers for a version-2 entry with a whole payload
// (one whose payload is shorter has room for more, unused).
func MaxCoversSectors(bs, nptrs int) int {
	return (bs - 4 - PayloadSize(bs) - entryHeaderSectors - nptrs*refSize) / coverSize
}

// storedPayload is the part of p a version-2 entry stores: up to its last
// non-zero byte.
func storedPayload(p []byte) []byte {
	n := len(p)
	for n > 0 && p[n-1] == 0 {
		n--
	}
	return p[:n]
}

// Len is how many bytes of a block of size bs the encoded entry takes:
// bs for version 1, its sectors for version 2.
func (e *Entry) Len(bs int) int {
	if !e.Sectors {
		return bs
	}
	n := entryHeaderSectors + len(e.Ptrs)*refSize + len(e.Covers)*coverSize + len(storedPayload(e.Payload)) + 4
	return min((n+EntrySector-1)/EntrySector*EntrySector, bs)
}

// Encode writes e into the block b: all of it for version 1; for version 2
// the first e.Len(len(b)) bytes, the rest cleared.
func (e *Entry) Encode(b []byte) error {
	bs := len(b)
	hdr, maxCovers := entryHeader, MaxCovers(bs, len(e.Ptrs))
	if e.Sectors {
		hdr, maxCovers = entryHeaderSectors, MaxCoversSectors(bs, len(e.Ptrs))
	}
	if (e.Sectors && bs%EntrySector != 0) || len(e.Ptrs) > MaxPtrs || len(e.Covers) > maxCovers || len(e.Payload) > PayloadSize(bs) {
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
	o := hdr
	for _, p := range e.Ptrs {
		putRef(b[o:], p)
		o += refSize
	}
	for _, c := range e.Covers {
		le.PutUint64(b[o:], c.Addr)
		le.PutUint32(b[o+8:], c.CRC)
		o += coverSize
	}
	if !e.Sectors {
		copy(b[bs-4-PayloadSize(bs):], e.Payload)
		seal(b)
		return nil
	}
	n := e.Len(bs)
	stored := storedPayload(e.Payload)
	le.PutUint16(b[8:], EntryVersionSectors)
	le.PutUint32(b[80:], uint32(len(stored)))
	le.PutUint16(b[84:], uint16(n/EntrySector))
	copy(b[o:], stored)
	seal(b[:n])
	return nil
}

// DecodeEntry parses a virtual-log entry from its whole block.
func DecodeEntry(b []byte) (*Entry, error) {
	if len(b) >= MinRecordBlock && string(b[:8]) == EntryMagic && binary.LittleEndian.Uint16(b[8:]) == EntryVersionSectors {
		return decodeEntrySectors(b)
	}
	if err := open(b, EntryMagic, "log entry"); err != nil {
		return nil, err
	}
	return decodeEntryBody(b, entryHeader, MaxCovers(len(b), MaxPtrs), len(b)-4-PayloadSize(len(b)), PayloadSize(len(b)))
}

// decodeEntrySectors checks a version-2 entry's length and CRC, then
// decodes it.
func decodeEntrySectors(b []byte) (*Entry, error) {
	bs := len(b)
	le := binary.LittleEndian
	k := int(le.Uint16(b[84:]))
	if k < 1 || k*EntrySector > bs || bs%EntrySector != 0 {
		return nil, fmt.Errorf("log entry: %d sectors in a block of %d bytes: %w", k, bs, ErrCorrupt)
	}
	n := k * EntrySector
	if got, want := le.Uint32(b[n-4:]), CRC(b[:n-4]); got != want {
		return nil, fmt.Errorf("log entry: crc %08x, computed %08x: %w", got, want, ErrChecksum)
	}
	stored := int(le.Uint32(b[80:]))
	np, nc := int(le.Uint16(b[10:])), int(le.Uint16(b[12:]))
	if le.Uint16(b[86:]) != 0 || stored > PayloadSize(bs) || np > MaxPtrs ||
		entryHeaderSectors+np*refSize+nc*coverSize+stored+4 > n {
		return nil, fmt.Errorf("log entry: %d pointers, %d covers, %d payload bytes in %d sectors: %w", np, nc, stored, k, ErrCorrupt)
	}
	e, err := decodeEntryBody(b[:n], entryHeaderSectors, nc, entryHeaderSectors+np*refSize+nc*coverSize, stored)
	if err != nil {
		return nil, err
	}
	e.Sectors = true
	e.Payload = append(e.Payload, make([]byte, PayloadSize(bs)-stored)...)
	return e, nil
}

// decodeEntryBody decodes what both layouts share: the header, hdr bytes,
// then the pointers and at most maxCovers covers; the payload is the n
// bytes at off.
func decodeEntryBody(b []byte, hdr, maxCovers, off, n int) (*Entry, error) {
	le := binary.LittleEndian
	np, nc := int(le.Uint16(b[10:])), int(le.Uint16(b[12:]))
	if np > MaxPtrs || nc > maxCovers || (hdr == entryHeader && nc > MaxCovers(len(b), np)) {
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
	o := hdr
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
	e.Payload = append([]byte(nil), b[off:off+n]...)
	return e, nil
}
