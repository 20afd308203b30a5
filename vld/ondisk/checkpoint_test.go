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
		t.Fatalf("a checkpoint written as version %d", v)
	}

	// A version-1 slot (an older build's, no extra tracks) had bytes
	// 10-16 reserved and nothing after the directory: whatever they hold,
	// it lists no extra track and no copy.
	c.Extra = nil
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(b[8:], FormatVersion)
	binary.LittleEndian.PutUint32(b[10:], 0x70007)
	seal(b)
	if c1, err := DecodeCheckpoint(b); err != nil || c1.Extra != nil || c1.DirCopies != nil || c1.Seq != 4 || c1.Version != FormatVersion {
		t.Fatalf("version 1: %+v %v", c1, err)
	}
	// Version 2 (extra tracks, no copies): byte 10-12 reserved.
	c.Extra = []uint32{3, 900, 17}
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint16(b[8:], checkpointExtraVersion)
	binary.LittleEndian.PutUint16(b[10:], 9)
	seal(b)
	if c2, err := DecodeCheckpoint(b); err != nil || !slices.Equal(c2.Extra, c.Extra) || c2.DirCopies != nil {
		t.Fatalf("version 2: %+v %v", c2, err)
	}

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
	binary.LittleEndian.PutUint16(b[8:], CheckpointDirSeqsVersion+1)
	seal(b)
	if _, err := DecodeCheckpoint(b); !errors.Is(err, ErrVersion) {
		t.Fatalf("version %d: %v", CheckpointDirSeqsVersion+1, err)
	}
}

// TestCheckpointDirCopies: version 3 names a copy of each directory block
// after the extra tracks; copies that do not fit, or whose count is not
// the directory's, are refused.
func TestCheckpointDirCopies(t *testing.T) {
	b := make([]byte, bs)
	c := &Checkpoint{UUID: testUUID, Seq: 9, LogSeq: 10, NextSeq: 11, WindowTracks: 64,
		NumPieces: 2, DirBlocks: []uint64{77, 78}, Extra: []uint32{3, 900}, DirCopies: []uint64{500, 501}}
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != CheckpointVersion {
		t.Fatalf("a checkpoint with directory copies written as version %d", v)
	}
	c2, err := DecodeCheckpoint(b)
	if err != nil || !slices.Equal(c2.DirCopies, c.DirCopies) || !slices.Equal(c2.Extra, c.Extra) || !slices.Equal(c2.DirBlocks, c.DirBlocks) {
		t.Fatalf("round trip: %+v %v", c2, err)
	}
	// Without extra tracks.
	c.Extra = nil
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	if c2, err := DecodeCheckpoint(b); err != nil || !slices.Equal(c2.DirCopies, c.DirCopies) || c2.Extra != nil {
		t.Fatalf("round trip without extra tracks: %+v %v", c2, err)
	}
	// A count other than the directory's.
	binary.LittleEndian.PutUint16(b[10:], 1)
	seal(b)
	if _, err := DecodeCheckpoint(b); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("one copy of two blocks: %v", err)
	}
	c.DirCopies = []uint64{1}
	if err := c.Encode(b); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("encoding one copy of two blocks: %v", err)
	}
	// Copies that do not fit beside a full directory.
	n := MaxDirBlocks(bs)/2 + 1
	c.DirBlocks, c.DirCopies, c.NumPieces = make([]uint64, n), make([]uint64, n), 1
	if CopiesFit(bs, n, 0) {
		t.Fatalf("copies of %d directory blocks fit a %d-byte block", n, bs)
	}
	if err := c.Encode(b); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("copies that do not fit: %v", err)
	}
}

// TestCheckpointDirSeqs: version 4 names the checkpoint that wrote each
// directory block, after the copies, and is written only when some block
// is older than the checkpoint (DirSeqs set); sequences of 0 or newer
// than the checkpoint, and sequences that do not fit, are refused.
func TestCheckpointDirSeqs(t *testing.T) {
	for _, c := range []struct {
		name   string
		extra  []uint32
		copies []uint64
	}{
		{"copies and extra tracks", []uint32{3, 900}, []uint64{500, 501}},
		{"no copies", []uint32{3}, nil},
		{"nothing else", nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := make([]byte, bs)
			ck := &Checkpoint{UUID: testUUID, Seq: 9, LogSeq: 10, NextSeq: 11, WindowTracks: 64,
				NumPieces: 2, DirBlocks: []uint64{77, 78}, Extra: c.extra, DirCopies: c.copies, DirSeqs: []uint64{4, 9}}
			if err := ck.Encode(b); err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint16(b[8:]); v != CheckpointDirSeqsVersion {
				t.Fatalf("written as version %d", v)
			}
			got, err := DecodeCheckpoint(b)
			if err != nil || !slices.Equal(got.DirSeqs, ck.DirSeqs) || !slices.Equal(got.DirCopies, ck.DirCopies) ||
				!slices.Equal(got.Extra, ck.Extra) || !slices.Equal(got.DirBlocks, ck.DirBlocks) || got.DirSeq(0) != 4 || got.DirSeq(1) != 9 {
				t.Fatalf("round trip: %+v %v", got, err)
			}
			at := ckptHeader + 8*2 + 4*len(c.extra) + 8*len(c.copies) // the first sequence
			for _, s := range []uint64{0, 10} {
				bad := slices.Clone(b)
				binary.LittleEndian.PutUint64(bad[at:], s)
				seal(bad)
				if _, err := DecodeCheckpoint(bad); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("directory block written by checkpoint %d of 9: %v", s, err)
				}
				ck.DirSeqs[0] = s
				if err := ck.Encode(make([]byte, bs)); !errors.Is(err, ErrCorrupt) {
					t.Fatalf("encoding a directory block written by checkpoint %d of 9: %v", s, err)
				}
				ck.DirSeqs[0] = 4
			}
		})
	}
	// Without sequences every block is the checkpoint's own, as version 3.
	ck := &Checkpoint{UUID: testUUID, Seq: 9, LogSeq: 10, NextSeq: 11, NumPieces: 1, DirBlocks: []uint64{77}}
	if ck.DirSeq(0) != 9 {
		t.Fatalf("DirSeq without sequences: %d", ck.DirSeq(0))
	}
	// Sequences that do not fit beside copies of a large directory.
	n := (bs - ckptHeader - 4) / 24
	if !DirSeqsFit(bs, n, 0, n) || DirSeqsFit(bs, n+1, 0, n+1) || DirSeqsFit(bs, n, 1+bs/4, n) {
		t.Fatalf("DirSeqsFit around %d blocks", n)
	}
	ck.DirBlocks, ck.DirCopies, ck.DirSeqs = make([]uint64, n+1), make([]uint64, n+1), make([]uint64, n+1)
	for i := range ck.DirSeqs {
		ck.DirSeqs[i] = 1
	}
	if err := ck.Encode(make([]byte, bs)); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("sequences that do not fit: %v", err)
	}
}
