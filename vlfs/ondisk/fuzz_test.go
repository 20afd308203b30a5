package ondisk

import (
	"encoding/binary"
	"testing"
)

// The native fuzz targets: each runs the target function of fuzz.go that
// its go-fuzz adapter (gofuzz.go) runs too. Seeds are valid records
// behind their 8 parameter bytes; more are in testdata/fuzz/FuzzX/.

// withParam prefixes b with the 8-byte parameter p.
func withParam(p uint64, b []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, p), b...)
}

// nativeFuzz adds the seeds and runs target on every input.
func nativeFuzz(f *testing.F, target func([]byte) (int, error), seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := target(data); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzInode(f *testing.F) {
	b := make([]byte, InodeSize)
	n := sampleInode()
	n.Encode(b)
	sb := make([]byte, InodeSize)
	n.Summed, n.Direct[11], n.DirectSum[0] = true, 0, 5
	n.Encode(sb)
	nativeFuzz(f, fuzzInode, withParam(33, b), withParam(33, sb), withParam(1, make([]byte, InodeSize)))
}

func FuzzInodeBlock(f *testing.F) {
	b := make([]byte, 1024)
	n := sampleInode()
	n.Ino = 33
	n.Encode(b[InodeSize:])
	nativeFuzz(f, fuzzInodeBlock, withParam(32, b))
}

func FuzzIndirect(f *testing.F) {
	b := make([]byte, 512)
	addrs := make([]uint64, PerIndirect(512))
	addrs[1] = 99
	EncodeIndirect(b, 3, 1, addrs, nil)
	s := make([]byte, 512)
	n := PerIndirectSummed(512)
	EncodeIndirect(s, 3, 1, make([]uint64, n), make([]uint32, n))
	nativeFuzz(f, fuzzIndirect, withParam(3<<8|1, b), withParam(3<<8|1, s), withParam(0, make([]byte, 600)))
}

func FuzzDirBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := EncodeDir(b, 1, []DirEntry{{"a", 2, 8}, {"bb", 3, 4}}); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzDirBlock, withParam(1, b))
}

func FuzzXattrBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := EncodeXattrs(b, 4, []Xattr{{"user.x", []byte("v")}}); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzXattrBlock, withParam(4, b))
}

func FuzzPiece(f *testing.F) {
	b := make([]byte, 256)
	addrs := make([]uint64, PerPiece(256))
	addrs[0] = 5
	EncodePiece(b, 2, addrs, nil)
	sb := make([]byte, 256)
	n := PerPieceSummed(256)
	ss := make([]uint32, n)
	ss[0] = 9
	EncodePiece(sb, 2, make([]uint64, n), ss)
	nativeFuzz(f, fuzzPiece, withParam(2, b), withParam(2, sb))
}

func FuzzRecord(f *testing.F) {
	b := make([]byte, 512)
	r := Record{Epoch: 3, Seq: 2, Files: []RecordFile{{Ino: 7, Size: 9000, Blocks: 3, Mtime: Timespec{5, 6},
		Ptrs: []RecordPtr{{0, 100, 0}, {600, 101, 0}}}, {Ino: 9}}}
	if _, err := EncodeRecord(b, &r); err != nil {
		f.Fatal(err)
	}
	sb := make([]byte, 512)
	r.Summed = true
	r.Files[0].Ptrs[1].Sum = 77
	if _, err := EncodeRecord(sb, &r); err != nil {
		f.Fatal(err)
	}
	e := make([]byte, EpochSize)
	if err := EncodeEpoch(e, 4); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzRecord, withParam(2, b), withParam(2, sb), withParam(0, e))
}

func FuzzSuperblock(f *testing.F) {
	s := Superblock{Version: FormatVersion, BlockSize: 4096, InodeSize: InodeSize, RootIno: 1}
	nativeFuzz(f, fuzzSuperblock, s.Encode())
}
