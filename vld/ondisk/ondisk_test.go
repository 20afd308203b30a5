package ondisk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
)

const bs = 4096

var testUUID = UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func sampleEntry() *Entry {
	return &Entry{
		UUID: testUUID, Seq: 42, GroupSeq: 41, GroupCount: 3, Piece: 7,
		PrevRoot: Ref{Addr: 99, Seq: 40},
		Ptrs:     []Ref{{Addr: 10, Seq: 40}, {Addr: 11, Seq: 30}},
		Covers:   []Cover{{Addr: 500, CRC: 0xdeadbeef}},
		Payload:  bytes.Repeat([]byte{0xab}, PayloadSize(bs)),
	}
}

func TestRoundTrips(t *testing.T) {
	b := make([]byte, bs)

	e := sampleEntry()
	if err := e.Encode(b); err != nil {
		t.Fatal(err)
	}
	e2, err := DecodeEntry(b)
	if err != nil || e2.Seq != 42 || e2.Piece != 7 || len(e2.Ptrs) != 2 || e2.Covers[0] != e.Covers[0] || !bytes.Equal(e2.Payload, e.Payload) || e2.PrevRoot != e.PrevRoot || e2.HasLive {
		t.Fatalf("entry: %+v %v", e2, err)
	}
	e.HasLive, e.Live = true, 0x0123456789abcdef
	if err := e.Encode(b); err != nil {
		t.Fatal(err)
	}
	if e2, err = DecodeEntry(b); err != nil || !e2.HasLive || e2.Live != e.Live {
		t.Fatalf("entry with a live-set digest: %+v %v", e2, err)
	}
	b[14] |= 2 // a flag this version does not know
	seal(b)
	if _, err := DecodeEntry(b); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("entry with an unknown flag: %v, want ErrCorrupt", err)
	}

	c := &Checkpoint{UUID: testUUID, Seq: 3, LogSeq: 10, NextSeq: 11, WindowStart: 5, WindowTracks: 64, NumPieces: 2, DirBlocks: []uint64{77}}
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	c2, err := DecodeCheckpoint(b)
	if err != nil || c2.Seq != 3 || c2.DirBlocks[0] != 77 || c2.WindowTracks != 64 {
		t.Fatalf("checkpoint: %+v %v", c2, err)
	}

	d := &DirBlock{UUID: testUUID, CkptSeq: 3, Index: 0, Entries: []DirEntry{{Piece: 1, At: Ref{Addr: 8, Seq: 9}}}}
	if err := d.Encode(b); err != nil {
		t.Fatal(err)
	}
	d2, err := DecodeDirBlock(b)
	if err != nil || d2.Entries[0] != d.Entries[0] {
		t.Fatalf("dir: %+v %v", d2, err)
	}

	tl := &Tail{UUID: testUUID, CkptSeq: 3, Root: Ref{Addr: 8, Seq: 9}, NextSeq: 10}
	tl.Encode(b)
	tl2, err := DecodeTail(b)
	if err != nil || *tl2 != *tl {
		t.Fatalf("tail: %+v %v", tl2, err)
	}
	tl.HasDigest, tl.Pieces, tl.Digest = true, 7, PieceDigest([]uint32{1, 5}, []Ref{{Addr: 20, Seq: 2}, {Addr: 21, Seq: 4}})
	tl.Encode(b)
	if tl2, err = DecodeTail(b); err != nil || *tl2 != *tl {
		t.Fatalf("tail with a digest: %+v %v", tl2, err)
	}
	if PieceDigest([]uint32{1, 5}, []Ref{{Addr: 20, Seq: 2}, {Addr: 21, Seq: 3}}) == tl.Digest {
		t.Fatal("the piece digest does not see an older version")
	}

	s := &Superblock{BlockSize: bs, UUID: testUUID, NumBlocks: 1000, Kind: "vlfs", AppData: []byte("app"), ModelJSON: []byte(`{"name":"x"}`)}
	if err := s.Encode(b); err != nil {
		t.Fatal(err)
	}
	s2, err := DecodeSuperblock(b)
	if err != nil || s2.Kind != "vlfs" || string(s2.AppData) != "app" || string(s2.ModelJSON) != `{"name":"x"}` || s2.NumBlocks != 1000 {
		t.Fatalf("superblock: %+v %v", s2, err)
	}
}

// TestSizes pins the wire layout: capacities derived from the block size.
func TestSizes(t *testing.T) {
	cases := []struct {
		name      string
		got, want int
	}{
		{"payload", PayloadSize(4096), 3072},
		{"covers with 16 pointers", MaxCovers(4096, MaxPtrs), 57},
		{"covers with no pointers", MaxCovers(4096, 0), 78},
		{"directory entries", DirEntriesPerBlock(4096), 168},
		{"checkpoint directory blocks", MaxDirBlocks(4096), 501},
		{"model JSON room", MaxModelJSON(4096), 3004},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestDamageIsClassified checks the sentinels recovery relies on.
func TestDamageIsClassified(t *testing.T) {
	b := make([]byte, bs)
	if err := sampleEntry().Encode(b); err != nil {
		t.Fatal(err)
	}
	torn := append([]byte(nil), b...)
	clear(torn[2048:])
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"zeroed", make([]byte, bs), ErrZeroed},
		{"other magic", append([]byte("XXXXXXXX"), b[8:]...), ErrBadMagic},
		{"torn", torn, ErrChecksum},
		{"short", b[:10], ErrTooSmall},
	}
	for _, c := range cases {
		if _, err := DecodeEntry(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if !IsNotRecord(ErrChecksum) || IsNotRecord(ErrCorrupt) {
		t.Error("IsNotRecord misclassifies")
	}
}

// TestPieceCopiesRoundTrip: a piece copy and a version-2 directory entry
// naming two copies come back as written; a version-1 directory block
// (24-byte entries, as checkpoints before issue 34's copies wrote them)
// still decodes.
func TestPieceCopiesRoundTrip(t *testing.T) {
	b := make([]byte, bs)
	c := &PieceCopy{UUID: testUUID, Piece: 7, Seq: 42, Index: 1, Payload: bytes.Repeat([]byte{0xab}, PayloadSize(bs))}
	if err := c.Encode(b); err != nil {
		t.Fatal(err)
	}
	c2, err := DecodePieceCopy(b)
	if err != nil || c2.Piece != 7 || c2.Seq != 42 || c2.Index != 1 || c2.UUID != testUUID || !bytes.Equal(c2.Payload, c.Payload) {
		t.Fatalf("piece copy: %+v %v", c2, err)
	}
	if _, err := DecodeEntry(b); !errors.Is(err, ErrBadMagic) {
		t.Fatalf("a piece copy decodes as a log entry (%v): the window scan would take it for one", err)
	}

	d := &DirBlock{UUID: testUUID, CkptSeq: 3, Entries: []DirEntry{
		{Piece: 1, At: Ref{Addr: 8, Seq: 9}},
		{Piece: 2, At: Ref{Addr: 10, Seq: 4}, Copies: true, Pair: 11},
		{Piece: 3, At: Ref{Addr: 12, Seq: 5}, Copies: true},
	}}
	if err := d.Encode(b); err != nil {
		t.Fatal(err)
	}
	d2, err := DecodeDirBlock(b)
	if err != nil || !slices.Equal(d2.Entries, d.Entries) {
		t.Fatalf("directory: %+v %v", d2, err)
	}

	if err := (&DirBlock{Entries: []DirEntry{{Piece: 4, At: Ref{Addr: 9, Seq: 1}, Copies: true, Pair: MaxPairAddr + 1}}}).Encode(b); !errors.Is(err, ErrTooSmall) {
		t.Fatalf("a second copy past block 2^32-1 encoded: %v", err)
	}

	old := make([]byte, bs)
	copy(old, DirMagic)
	le := binary.LittleEndian
	le.PutUint16(old[8:], 1)
	le.PutUint32(old[12:], 2)
	copy(old[16:32], testUUID[:])
	le.PutUint64(old[32:], 3)
	for i, r := range []Ref{{Addr: 8, Seq: 9}, {Addr: 20, Seq: 21}} {
		le.PutUint32(old[dirHeader+24*i:], uint32(i+1))
		putRef(old[dirHeader+24*i+8:], r)
	}
	seal(old)
	d1, err := DecodeDirBlock(old)
	if err != nil || len(d1.Entries) != 2 || d1.Entries[1] != (DirEntry{Piece: 2, At: Ref{Addr: 20, Seq: 21}}) {
		t.Fatalf("version-1 directory: %+v %v", d1, err)
	}
}
