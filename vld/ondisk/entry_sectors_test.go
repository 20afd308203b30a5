package ondisk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// smallEntry is a version-2 entry whose payload (a file system's log
// record) ends well before PayloadSize.
func smallEntry() *Entry {
	e := sampleEntry()
	e.Sectors, e.HasLive, e.Live = true, true, 0x1122334455667788
	e.Payload = make([]byte, PayloadSize(bs))
	copy(e.Payload, bytes.Repeat([]byte{0xcd}, 116))
	return e
}

// TestSectorEntryLen: a version-2 entry takes the sectors its header,
// pointers, covers and stored payload need; version 1 the whole block.
func TestSectorEntryLen(t *testing.T) {
	cases := []struct {
		name    string
		ptrs    int
		payload int
		want    int
	}{
		{"record with two pointers", 2, 116, 512},
		{"record with sixteen pointers", 16, 116, 512},
		{"just over a sector", 16, 153, 1024},
		{"empty payload", 0, 0, 512},
		{"whole payload: a sector short of the block", 16, PayloadSize(bs), bs - EntrySector},
	}
	for _, c := range cases {
		e := smallEntry()
		e.Ptrs = make([]Ref, c.ptrs)
		for i := range e.Ptrs {
			e.Ptrs[i] = Ref{Addr: uint64(10 + i), Seq: uint64(1 + i)}
		}
		clear(e.Payload)
		copy(e.Payload, bytes.Repeat([]byte{0xcd}, c.payload))
		if got := e.Len(bs); got != c.want {
			t.Errorf("%s: Len %d, want %d", c.name, got, c.want)
		}
		b := bytes.Repeat([]byte{0xee}, bs)
		if err := e.Encode(b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := DecodeEntry(b)
		if err != nil || !got.Sectors || got.Seq != e.Seq || len(got.Ptrs) != c.ptrs || !bytes.Equal(got.Payload, e.Payload) || got.Live != e.Live {
			t.Fatalf("%s: decoded %+v, %v", c.name, got, err)
		}
	}
	v1 := sampleEntry()
	if v1.Len(bs) != bs {
		t.Errorf("version 1 Len %d, want the block", v1.Len(bs))
	}
}

// TestSectorEntryOwnsOnlyItsSectors: what follows a version-2 entry in its
// block is not its own (an older entry, data): the entry decodes whatever
// it holds, and damage inside its sectors is still found.
func TestSectorEntryOwnsOnlyItsSectors(t *testing.T) {
	e := smallEntry()
	b := make([]byte, bs)
	if err := e.Encode(b); err != nil {
		t.Fatal(err)
	}
	n := e.Len(bs)
	stale := append([]byte(nil), b...)
	copy(stale[n:], bytes.Repeat([]byte{0x5a}, bs-n))
	if got, err := DecodeEntry(stale); err != nil || got.Seq != e.Seq {
		t.Fatalf("with other bytes after it: %+v, %v", got, err)
	}
	flipped := append([]byte(nil), stale...)
	flipped[n-100] ^= 1
	torn := append([]byte(nil), stale...)
	clear(torn[256:n])
	badLen := append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(badLen[84:], uint16(bs/EntrySector+1))
	zeroLen := append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(zeroLen[84:], 0)
	long := append([]byte(nil), b...) // stored payload past its sectors
	binary.LittleEndian.PutUint32(long[80:], 600)
	seal(long[:n])
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"bit flipped in its sectors", flipped, ErrChecksum},
		{"torn inside its sectors", torn, ErrChecksum},
		{"more sectors than the block", badLen, ErrCorrupt},
		{"no sectors", zeroLen, ErrCorrupt},
		{"payload past its sectors", long, ErrCorrupt},
		{"short buffer", b[:100], ErrTooSmall},
	}
	for _, c := range cases {
		if _, err := DecodeEntry(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// TestSectorEntryVersions: a version-2 entry says so at byte 8; a volume
// whose entries may be sector-sized has superblock version 2, which
// older builds refuse instead of misreading its entries.
func TestSectorEntryVersions(t *testing.T) {
	b := make([]byte, bs)
	if err := smallEntry().Encode(b); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint16(b[8:]); v != EntryVersionSectors {
		t.Errorf("entry version %d, want %d", v, EntryVersionSectors)
	}
	for _, sectors := range []bool{false, true} {
		sb := Superblock{BlockSize: bs, NumBlocks: 100, Kind: "disk", SectorEntries: sectors}
		if err := sb.Encode(b); err != nil {
			t.Fatal(err)
		}
		want := uint16(FormatVersion)
		if sectors {
			want = SuperVersionSectors
		}
		if v := binary.LittleEndian.Uint16(b[8:]); v != want {
			t.Errorf("sector entries %v: superblock version %d, want %d", sectors, v, want)
		}
		got, err := DecodeSuperblock(b)
		if err != nil || got.SectorEntries != sectors {
			t.Errorf("sector entries %v: decoded %+v, %v", sectors, got, err)
		}
	}
	binary.LittleEndian.PutUint16(b[8:], SuperVersionSectors+1)
	seal(b)
	if _, err := DecodeSuperblock(b); !errors.Is(err, ErrVersion) {
		t.Errorf("superblock version 3: %v, want ErrVersion", err)
	}
}
