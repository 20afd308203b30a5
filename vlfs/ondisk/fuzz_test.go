package ondisk

import "testing"

// The fuzz targets check that decoders never panic and that whatever they
// accept re-encodes to something they accept again.

func FuzzInode(f *testing.F) {
	b := make([]byte, InodeSize)
	n := sampleInode()
	n.Encode(b)
	f.Add(b, uint64(33))
	f.Add(make([]byte, InodeSize), uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, ino uint64) {
		n, err := DecodeInode(b, ino)
		if err != nil {
			return
		}
		out := make([]byte, InodeSize)
		n.Encode(out)
		if _, err := DecodeInode(out, ino); err != nil {
			t.Fatalf("re-encoded inode rejected: %v", err)
		}
	})
}

func FuzzInodeBlock(f *testing.F) {
	b := make([]byte, 1024)
	n := sampleInode()
	n.Ino = 33
	n.Encode(b[InodeSize:])
	f.Add(b, uint64(32))
	f.Fuzz(func(t *testing.T, b []byte, first uint64) {
		_ = DecodeInodeBlock(b, first, func(int, *Inode) error { return nil })
	})
}

func FuzzIndirect(f *testing.F) {
	b := make([]byte, 512)
	addrs := make([]uint64, PerIndirect(512))
	addrs[1] = 99
	EncodeIndirect(b, 3, 1, addrs)
	f.Add(b, uint64(3), uint8(1))
	f.Add(make([]byte, 600), uint64(0), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, owner uint64, level uint8) {
		dst := make([]uint64, PerIndirect(len(b)))
		if DecodeIndirect(b, owner, int(level), dst) != nil {
			return
		}
		out := make([]byte, len(b))
		EncodeIndirect(out, owner, int(level), dst)
		if err := DecodeIndirect(out, owner, int(level), dst); err != nil {
			t.Fatalf("re-encoded indirect block rejected: %v", err)
		}
	})
}

func FuzzDirBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := EncodeDir(b, 1, []DirEntry{{"a", 2, 8}, {"bb", 3, 4}}); err != nil {
		f.Fatal(err)
	}
	f.Add(b, uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, owner uint64) {
		var ents []DirEntry
		if DecodeDir(b, owner, func(e DirEntry) error { ents = append(ents, e); return nil }) != nil {
			return
		}
		out := make([]byte, len(b))
		if err := EncodeDir(out, owner, ents); err != nil {
			t.Fatalf("accepted entries do not re-encode: %v", err)
		}
	})
}

func FuzzXattrBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := EncodeXattrs(b, 4, []Xattr{{"user.x", []byte("v")}}); err != nil {
		f.Fatal(err)
	}
	f.Add(b, uint64(4))
	f.Fuzz(func(t *testing.T, b []byte, owner uint64) {
		var xs []Xattr
		if DecodeXattrs(b, owner, func(x Xattr) error { xs = append(xs, x); return nil }) != nil {
			return
		}
		out := make([]byte, len(b))
		if err := EncodeXattrs(out, owner, xs); err != nil {
			t.Fatalf("accepted attributes do not re-encode: %v", err)
		}
	})
}

func FuzzPiece(f *testing.F) {
	b := make([]byte, 256)
	addrs := make([]uint64, PerPiece(256))
	addrs[0] = 5
	EncodePiece(b, 2, addrs)
	f.Add(b, uint32(2))
	f.Fuzz(func(t *testing.T, b []byte, index uint32) {
		dst := make([]uint64, PerPiece(len(b)))
		_ = DecodePiece(b, index, dst)
	})
}

func FuzzSuperblock(f *testing.F) {
	s := Superblock{Version: FormatVersion, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1}
	f.Add(s.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSuperblock(b)
		if err != nil {
			return
		}
		if _, err := DecodeSuperblock(s.Encode()); err != nil {
			t.Fatalf("re-encoded superblock rejected: %v", err)
		}
	})
}
