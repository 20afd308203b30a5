package ondisk

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

const testBS = 4096

func TestSizes(t *testing.T) {
	tests := []struct {
		name      string
		got, want int
	}{
		{"superblock", len((&Superblock{}).Encode()), SuperblockSize},
		{"inode", InodeSize, 256},
		{"inodes per 4K block", InodesPerBlock(4096), 16},
		{"indirect per 4K block", PerIndirect(4096), 509},
		{"summed indirect per 4K block", PerIndirectSummed(4096), 339},
		{"summed inode direct pointers and sums", 112 + NumDirectSummed*12, 208},
		{"dir capacity 4K", DirCapacity(4096), 4072},
		{"addresses per 4000-byte piece", PerPiece(4000), 497},
		{"summed entries per 4000-byte piece", PerPieceSummed(4000), 331},
		{"summed inode: root and xattr sums end", 232 + 4*NumIndirect + 4 + 4, 252},
		{"inode end of fields", 232 + 20 + 4, InodeSize},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

func sampleInode() Inode {
	n := Inode{Mode: ModeReg | 0o644, Nlink: 2, Uid: 1000, Gid: 100, Rdev: 7, Ino: 33, Gen: 4,
		Size: 5 << 32, Blocks: 9, Atime: Timespec{1, 2}, Mtime: Timespec{-3, 999999999},
		Ctime: Timespec{5, 6}, Parent: 0, Xattr: 77}
	for i := range n.Direct {
		n.Direct[i] = uint64(100 + i)
	}
	n.Indirect = [3]uint64{200, 0, 300}
	return n
}

func TestInodeRoundTrip(t *testing.T) {
	n := sampleInode()
	b := make([]byte, InodeSize)
	n.Encode(b)
	got, err := DecodeInode(b, 33)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, n) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, n)
	}
}

// TestSummedInodeRoundTrip: a summed inode keeps 8 direct pointers and
// their sums, and a flipped sum is caught by the inode's CRC.
func TestSummedInodeRoundTrip(t *testing.T) {
	n := sampleInode()
	n.Summed = true
	for i := range n.Direct {
		if i >= NumDirectSummed {
			n.Direct[i] = 0
			continue
		}
		n.DirectSum[i] = uint32(0xfeed0000 + i)
	}
	n.IndirectSum = [3]uint32{11, 0, 33}
	n.XattrSum = 0x5a5a5a5a
	b := make([]byte, InodeSize)
	n.Encode(b)
	if b[2] != SummedFormatVersion {
		t.Fatalf("layout byte %d, want %d", b[2], SummedFormatVersion)
	}
	got, err := DecodeInode(b, 33)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, n) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, n)
	}
	b[180] ^= 1 // sum[1]
	if _, err := DecodeInode(b, 33); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("flipped sum: %v", err)
	}
}

func TestInodeRejects(t *testing.T) {
	good := make([]byte, InodeSize)
	n := sampleInode()
	n.Encode(good)
	tests := []struct {
		name string
		mod  func(b []byte) []byte
		ino  uint64
		want error
	}{
		{"zeroed", func(b []byte) []byte { return make([]byte, InodeSize) }, 33, ErrZeroed},
		{"short", func(b []byte) []byte { return b[:100] }, 33, ErrTooSmall},
		{"bit flip", func(b []byte) []byte { b[40] ^= 1; return b }, 33, ErrCorrupt},
		{"wrong inode", func(b []byte) []byte { return b }, 34, ErrCorrupt},
		{"bad magic", func(b []byte) []byte { b[0] = 0; return b }, 33, ErrCorrupt},
		{"bad type", func(b []byte) []byte { le.PutUint32(b[4:], 0o070000); seal(b, InodeCRCOff); return b }, 33, ErrCorrupt},
		{"bad nsec", func(b []byte) []byte { le.PutUint32(b[64:], 1e9); seal(b, InodeCRCOff); return b }, 33, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.mod(append([]byte(nil), good...))
			if _, err := DecodeInode(b, tt.ino); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestInodeBlock(t *testing.T) {
	b := make([]byte, testBS)
	n := sampleInode()
	n.Ino = 16 + 3
	n.Encode(b[3*InodeSize:])
	var used []int
	err := DecodeInodeBlock(b, 16, func(s int, in *Inode) error {
		if in.Ino != 16+uint64(s) {
			t.Errorf("slot %d: ino %d", s, in.Ino)
		}
		if !in.Free() {
			used = append(used, s)
		}
		return nil
	})
	if err != nil || !reflect.DeepEqual(used, []int{3}) {
		t.Fatalf("used %v err %v", used, err)
	}
	b[3*InodeSize+50] ^= 1
	if err := DecodeInodeBlock(b, 16, func(int, *Inode) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt slot: %v", err)
	}
}

func TestSuperblock(t *testing.T) {
	var b []byte
	for _, v := range []uint32{FSVersionAddr, FSVersionNodeMap, FSVersionRecords} {
		s := Superblock{Version: v, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1, Created: 12345}
		b = s.Encode()
		got, err := DecodeSuperblock(append(b, 0, 0, 0))
		if err != nil || got != s {
			t.Fatalf("version %d: got %+v, %v", v, got, err)
		}
	}
	tests := []struct {
		name string
		s    Superblock
	}{
		{"version 0", Superblock{Version: 0, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1}},
		{"version 6", Superblock{Version: FSVersionUnwritten + 1, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1}},
		{"version", Superblock{Version: 9, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1}},
		{"block size", Superblock{Version: FormatVersion, BlockSize: 3000, InodeSize: InodeSize, RootIno: 1}},
		{"inode size", Superblock{Version: FormatVersion, BlockSize: 4096, InodeSize: 128, RootIno: 1}},
		{"root", Superblock{Version: FormatVersion, BlockSize: 4096, InodeSize: InodeSize}},
	}
	for _, tt := range tests {
		if _, err := DecodeSuperblock(tt.s.Encode()); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	b[20] = 1
	if _, err := DecodeSuperblock(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("flip: %v", err)
	}
}

func TestIndirect(t *testing.T) {
	b := make([]byte, testBS)
	addrs := make([]uint64, PerIndirect(testBS))
	addrs[0], addrs[508] = 9, 1<<40
	EncodeIndirect(b, 5, 2, addrs, nil)
	got := make([]uint64, len(addrs))
	if err := DecodeIndirect(b, 5, 2, got, nil); err != nil || !reflect.DeepEqual(got, addrs) {
		t.Fatalf("round trip: %v", err)
	}
	for _, c := range []struct {
		owner uint64
		level int
	}{{6, 2}, {5, 1}} {
		if err := DecodeIndirect(b, c.owner, c.level, got, nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("owner %d level %d: %v", c.owner, c.level, err)
		}
	}
	// A version-1 block is not a summed one, nor the other way round.
	n := PerIndirectSummed(testBS)
	if err := DecodeIndirect(b, 5, 2, make([]uint64, n), make([]uint32, n)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version-1 block read as summed: %v", err)
	}
}

func TestSummedIndirect(t *testing.T) {
	b := make([]byte, testBS)
	n := PerIndirectSummed(testBS)
	addrs, sums := make([]uint64, n), make([]uint32, n)
	addrs[0], addrs[n-1] = 9, 1<<40
	sums[0], sums[n-1] = 0xdeadbeef, 1
	EncodeIndirect(b, 5, 1, addrs, sums)
	gotA, gotS := make([]uint64, n), make([]uint32, n)
	if err := DecodeIndirect(b, 5, 1, gotA, gotS); err != nil || !reflect.DeepEqual(gotA, addrs) || !reflect.DeepEqual(gotS, sums) {
		t.Fatalf("round trip: %v", err)
	}
	if err := DecodeIndirect(b, 5, 1, make([]uint64, PerIndirect(testBS)), nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("summed block read as version 1: %v", err)
	}
	if !allZero(b[BlockHeaderSize+12*n:]) {
		t.Error("padding after the sums is not zero")
	}
}

func TestDirBlock(t *testing.T) {
	b := make([]byte, testBS)
	ents := []DirEntry{{"a", 2, ModeReg >> 12}, {string(bytes.Repeat([]byte("x"), 255)), 3, ModeDir >> 12}}
	if err := EncodeDir(b, 1, ents); err != nil {
		t.Fatal(err)
	}
	var got []DirEntry
	if err := DecodeDir(b, 1, func(e DirEntry) error { got = append(got, e); return nil }); err != nil || !reflect.DeepEqual(got, ents) {
		t.Fatalf("round trip %v %v", got, err)
	}
	big := make([]DirEntry, 0, 400)
	for i := 0; i < 400; i++ {
		big = append(big, DirEntry{"name-of-entry", uint64(i + 1), ModeReg >> 12})
	}
	if err := EncodeDir(b, 1, big); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("overfull: %v", err)
	}
	for _, bad := range []string{".", "..", "a/b", "", "a\x00"} {
		if err := EncodeDir(b, 1, []DirEntry{{bad, 2, 8}}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

func TestXattrBlock(t *testing.T) {
	b := make([]byte, testBS)
	xs := []Xattr{{"user.a", []byte("1")}, {"user.empty", []byte{}}}
	if err := EncodeXattrs(b, 8, xs); err != nil {
		t.Fatal(err)
	}
	var got []Xattr
	if err := DecodeXattrs(b, 8, func(x Xattr) error { got = append(got, x); return nil }); err != nil || !reflect.DeepEqual(got, xs) {
		t.Fatalf("round trip %v %v", got, err)
	}
	if err := EncodeXattrs(b, 8, []Xattr{{"user.big", make([]byte, testBS)}}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("too large: %v", err)
	}
}

func TestPiece(t *testing.T) {
	b := make([]byte, 1000)
	addrs := make([]uint64, PerPiece(1000))
	addrs[3] = 42
	EncodePiece(b, 7, addrs, nil)
	got := make([]uint64, len(addrs))
	if err := DecodePiece(b, 7, got, nil); err != nil || !reflect.DeepEqual(got, addrs) {
		t.Fatalf("round trip %v", err)
	}
	if err := DecodePiece(b, 8, got, nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("wrong index: %v", err)
	}
	if err := DecodePiece(make([]byte, 1000), 7, got, nil); !errors.Is(err, ErrZeroed) {
		t.Fatalf("zero: %v", err)
	}
	n := PerPieceSummed(1000)
	if err := DecodePiece(b, 7, make([]uint64, n), make([]uint32, n)); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("version-1 piece read as summed: %v", err)
	}
}

func TestSummedPiece(t *testing.T) {
	b := make([]byte, 1000)
	n := PerPieceSummed(1000)
	addrs, sums := make([]uint64, n), make([]uint32, n)
	addrs[3], sums[3] = 42, 0xabcdef01
	addrs[n-1], sums[n-1] = 1<<40, 7
	EncodePiece(b, 7, addrs, sums)
	gotA, gotS := make([]uint64, n), make([]uint32, n)
	if err := DecodePiece(b, 7, gotA, gotS); err != nil || !reflect.DeepEqual(gotA, addrs) || !reflect.DeepEqual(gotS, sums) {
		t.Fatalf("round trip %v", err)
	}
	if err := DecodePiece(b, 7, make([]uint64, PerPiece(1000)), nil); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("summed piece read as version 1: %v", err)
	}
}
