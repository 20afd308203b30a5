package ondisk

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

// TestCheckpointExtraTracks: the extra log tracks survive a round trip
// beside the directory blocks, a version-1 slot (no extra tracks) still
// decodes, and a count that would overrun the block is refused.
func TestCheckpointExtraTracks(t *testing.T) {
	b := make([]byte, bs)
	c := &Checkpoint{UUID: testUUID, Seq: 4, LogSeq: 10, NextSeq: 11, WindowStart: 5, WindowTracks: 64,
		NumPieces: 2, DirBlocks: []uint64{77, 78}, Extra: []uint32{3, 900, 17}}
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	c2, err := DecodeCheckpoint(b)
	if err != nil || !slices.Equal(c2.Extra, c.Extra) || !slices.Equal(c2.DirBlocks, c.DirBlocks) {
		t.Fatalf("round trip: %+v %v", c2, err)
	}

	if v := binary.LittleEndian.Uint16(b[8:]); v != CheckpointVersion {
		t.Fatalf("a checkpoint with extra tracks written as version %d", v)
	}

	// Without extra tracks it is written as version 1, which had bytes
	// 10-16 reserved and nothing after the directory: whatever they hold,
	// a version-1 slot lists no extra track.
	c.Extra = nil
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != FormatVersion {
		t.Fatalf("a checkpoint without extra tracks written as version %d", v)
	}
	binary.LittleEndian.PutUint32(b[12:], 7)
	seal(b)
	if c1, err := DecodeCheckpoint(b); err != nil || c1.Extra != nil || c1.Seq != 4 {
		t.Fatalf("version 1: %+v %v", c1, err)
	}
	binary.LittleEndian.PutUint16(b[8:], CheckpointVersion)

	// Full: as many extra tracks as fit, and one more.
	c.Extra = make([]uint32, MaxExtraTracks(bs, len(c.DirBlocks)))
	if err := c.Encode(b); err != nil {
		t.Fatalf("%d extra tracks: %v", len(c.Extra), err)
	}
	if _, err := DecodeCheckpoint(b); err != nil {
		t.Fatal(err)
	}
	c.Extra = append(c.Extra, 1)
	if err := c.Encode(b); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("one extra track too many: %v", err)
	}
	c.Extra = c.Extra[:3]
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[12:], uint32(MaxExtraTracks(bs, 2)+1))
	seal(b)
	if _, err := DecodeCheckpoint(b); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("count overrunning the block: %v", err)
	}

	// A version this build does not know.
	binary.LittleEndian.PutUint16(b[8:], CheckpointVersion+1)
	seal(b)
	if _, err := DecodeCheckpoint(b); !errors.Is(err, ErrVersion) {
		t.Fatalf("version %d: %v", CheckpointVersion+1, err)
	}
}
