package fuzz

import (
	"encoding/binary"
	"testing"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// The native fuzz targets: each runs the target function of fuzz.go that
// its go-fuzz adapter (gofuzz.go) runs too. Seeds are valid records
// behind their 8 parameter bytes; more are in testdata/fuzz/FuzzX/.

// withParam prefixes b with the 8-byte parameter p.
func withParam(p uint64, b []byte) []byte {
	return append(binary.LittleEndian.AppendUint64(nil, p), b...)
}

// seedInode is a regular file's inode, every pointer set, for the seeds.
func seedInode() ondisk.Inode {
	n := ondisk.Inode{Mode: ondisk.ModeReg | 0o644, Nlink: 1, Ino: 33, Size: 1 << 20, Blocks: 16,
		Mtime: ondisk.Timespec{Sec: 7, Nsec: 8}, Xattr: 77}
	for i := range n.Direct {
		n.Direct[i] = uint64(100 + i)
	}
	n.Indirect = [3]uint64{200, 0, 300}
	return n
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
	b := make([]byte, ondisk.InodeSize)
	n := seedInode()
	n.Encode(b)
	sb := make([]byte, ondisk.InodeSize)
	n.Summed, n.Direct[11], n.DirectSum[0] = true, 0, 5
	n.Encode(sb)
	nativeFuzz(f, fuzzInode, withParam(33, b), withParam(33, sb), withParam(1, make([]byte, ondisk.InodeSize)))
}

func FuzzInodeBlock(f *testing.F) {
	b := make([]byte, 1024)
	n := seedInode()
	n.Ino = 33
	n.Encode(b[ondisk.InodeSize:])
	nativeFuzz(f, fuzzInodeBlock, withParam(32, b))
}

func FuzzIndirect(f *testing.F) {
	b := make([]byte, 512)
	addrs := make([]uint64, ondisk.PerIndirect(512))
	addrs[1] = 99
	ondisk.EncodeIndirect(b, 3, 1, addrs, nil)
	s := make([]byte, 512)
	n := ondisk.PerIndirectSummed(512)
	ondisk.EncodeIndirect(s, 3, 1, make([]uint64, n), make([]uint32, n))
	nativeFuzz(f, fuzzIndirect, withParam(3<<8|1, b), withParam(3<<8|1, s), withParam(0, make([]byte, 600)))
}

func FuzzDirBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := ondisk.EncodeDir(b, 1, []ondisk.DirEntry{{Name: "a", Ino: 2, Type: 8}, {Name: "bb", Ino: 3, Type: 4}}); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzDirBlock, withParam(1, b))
}

func FuzzXattrBlock(f *testing.F) {
	b := make([]byte, 512)
	if err := ondisk.EncodeXattrs(b, 4, []ondisk.Xattr{{Name: "user.x", Value: []byte("v")}}); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzXattrBlock, withParam(4, b))
}

func FuzzPiece(f *testing.F) {
	b := make([]byte, 256)
	addrs := make([]uint64, ondisk.PerPiece(256))
	addrs[0] = 5
	ondisk.EncodePiece(b, 2, addrs, nil)
	sb := make([]byte, 256)
	n := ondisk.PerPieceSummed(256)
	ss := make([]uint32, n)
	ss[0] = 9
	ondisk.EncodePiece(sb, 2, make([]uint64, n), ss)
	nativeFuzz(f, fuzzPiece, withParam(2, b), withParam(2, sb))
}

func FuzzRecord(f *testing.F) {
	b := make([]byte, 512)
	r := ondisk.Record{Epoch: 3, Seq: 2, Files: []ondisk.RecordFile{{Ino: 7, Size: 9000, Blocks: 3, Mtime: ondisk.Timespec{Sec: 5, Nsec: 6},
		Ptrs: []ondisk.RecordPtr{{Lbn: 0, Addr: 100}, {Lbn: 600, Addr: 101}}}, {Ino: 9}}}
	if _, err := ondisk.EncodeRecord(b, &r); err != nil {
		f.Fatal(err)
	}
	sb := make([]byte, 512)
	r.Summed = true
	r.Files[0].Ptrs[1].Sum = 77
	if _, err := ondisk.EncodeRecord(sb, &r); err != nil {
		f.Fatal(err)
	}
	e := make([]byte, ondisk.EpochSize)
	if err := ondisk.EncodeEpoch(e, 4); err != nil {
		f.Fatal(err)
	}
	nativeFuzz(f, fuzzRecord, withParam(2, b), withParam(2, sb), withParam(0, e))
}

func FuzzSuperblock(f *testing.F) {
	s := ondisk.Superblock{Version: ondisk.FormatVersion, BlockSize: 4096, InodeSize: ondisk.InodeSize, RootIno: 1}
	nativeFuzz(f, fuzzSuperblock, s.Encode())
}
