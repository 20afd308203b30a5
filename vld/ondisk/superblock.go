package ondisk

import (
	"encoding/binary"
	"fmt"
)

// Fixed block addresses. Wire constants: never change.
const (
	SuperblockAddr = 0
	CheckpointA    = 1
	CheckpointB    = 2
	TailAddr       = 3
	// FixedBlocks is the number of blocks at the start of every volume that
	// the allocator never hands out.
	FixedBlocks = 4
)

// SuperMagic starts block 0. Wire constant.
const SuperMagic = "VLDSUPER"

// MaxAppData bounds the client's opaque superblock area.
const MaxAppData = 1024

// MinBlockSize is the smallest block a volume can use: the superblock must
// hold the embedded disk model.
const MinBlockSize = 4096

// Superblock is block 0. It is written once, by mkfs.
//
//	offset size field
//	0      8    magic "VLDSUPER"
//	8      2    format version: 2 if log entries may be sector-sized
//	             (SuperVersionSectors), else 1
//	10     1    placement policy (0 eager, 1 in place, 2 lfs; 0 on older images)
//	11     1    reserved (0)
//	12     4    block size in bytes
//	16     16   volume UUID
//	32     8    number of blocks
//	40     8    kind (client name, NUL padded: "vlfs", "disk")
//	48     8    creation time, Unix ns
//	56     4    app data length (<= 1024)
//	60     4    disk model JSON length
//	64     1024 app data (zero padded)
//	1088   ...  disk model JSON (zero padded)
//	bs-4   4    CRC-32C of bytes [0, bs-4)
type Superblock struct {
	BlockSize uint32
	UUID      UUID
	NumBlocks uint64
	Kind      string
	CreatedNs int64
	AppData   []byte
	ModelJSON []byte
	Placement uint8 // how the volume places client writes (vld.Placement)
	// SectorEntries: log entries take only the sectors they need (entry
	// version 2). Written as superblock version 2, which builds that do
	// not read such entries refuse.
	SectorEntries bool
}

// SuperVersionSectors is the superblock version of volumes whose log
// entries may be sector-sized.
const SuperVersionSectors = 2

const superModelOff = 64 + MaxAppData

// MaxModelJSON is the room for the disk model in a superblock of size bs.
func MaxModelJSON(bs int) int { return bs - superModelOff - 4 }

// Encode writes s into b, which must be exactly one block.
func (s *Superblock) Encode(b []byte) error {
	if len(b) < MinBlockSize || len(b) != int(s.BlockSize) {
		return fmt.Errorf("superblock: buffer %d for block size %d: %w", len(b), s.BlockSize, ErrTooSmall)
	}
	if len(s.Kind) > 8 || len(s.AppData) > MaxAppData || len(s.ModelJSON) > MaxModelJSON(len(b)) {
		return fmt.Errorf("superblock: kind %d, app data %d or model %d bytes too long: %w",
			len(s.Kind), len(s.AppData), len(s.ModelJSON), ErrCorrupt)
	}
	clear(b)
	copy(b, SuperMagic)
	le := binary.LittleEndian
	le.PutUint16(b[8:], FormatVersion)
	if s.SectorEntries {
		le.PutUint16(b[8:], SuperVersionSectors)
	}
	b[10] = s.Placement
	le.PutUint32(b[12:], s.BlockSize)
	copy(b[16:32], s.UUID[:])
	le.PutUint64(b[32:], s.NumBlocks)
	copy(b[40:48], s.Kind)
	le.PutUint64(b[48:], uint64(s.CreatedNs))
	le.PutUint32(b[56:], uint32(len(s.AppData)))
	le.PutUint32(b[60:], uint32(len(s.ModelJSON)))
	copy(b[64:], s.AppData)
	copy(b[superModelOff:], s.ModelJSON)
	seal(b)
	return nil
}

// DecodeSuperblock parses block 0. The block size is read from the block
// itself, so b may be longer than the block (callers read MinBlockSize
// first, then the rest if the block is larger).
func DecodeSuperblock(b []byte) (*Superblock, error) {
	if len(b) < MinBlockSize {
		return nil, fmt.Errorf("superblock: %d bytes: %w", len(b), ErrTooSmall)
	}
	if string(b[:8]) != SuperMagic {
		return nil, fmt.Errorf("superblock: magic %q, not a vlfs image: %w", b[:8], ErrBadMagic)
	}
	le := binary.LittleEndian
	bs := le.Uint32(b[12:])
	if bs < MinBlockSize || bs > 1<<20 || bs&(bs-1) != 0 {
		return nil, fmt.Errorf("superblock: block size %d: %w", bs, ErrCorrupt)
	}
	if int(bs) > len(b) {
		return nil, fmt.Errorf("superblock: block size %d > %d bytes read: %w", bs, len(b), ErrTooSmall)
	}
	b = b[:bs]
	version, err := openVersions(b, SuperMagic, "superblock", FormatVersion, SuperVersionSectors)
	if err != nil {
		return nil, err
	}
	s := &Superblock{BlockSize: bs, NumBlocks: le.Uint64(b[32:]), CreatedNs: int64(le.Uint64(b[48:])), Placement: b[10],
		SectorEntries: version == SuperVersionSectors}
	copy(s.UUID[:], b[16:32])
	s.Kind = trimNul(b[40:48])
	al, ml := le.Uint32(b[56:]), le.Uint32(b[60:])
	if al > MaxAppData || int64(ml) > int64(MaxModelJSON(int(bs))) {
		return nil, fmt.Errorf("superblock: app data %d / model %d bytes: %w", al, ml, ErrCorrupt)
	}
	if s.NumBlocks < FixedBlocks+1 {
		return nil, fmt.Errorf("superblock: %d blocks: %w", s.NumBlocks, ErrCorrupt)
	}
	s.AppData = append([]byte(nil), b[64:64+al]...)
	s.ModelJSON = append([]byte(nil), b[superModelOff:superModelOff+int(ml)]...)
	return s, nil
}

func trimNul(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
