package fuzz

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// The native fuzz targets: each runs the target function of fuzz.go that
// its go-fuzz adapter (gofuzz.go) runs too. Seeds: one valid record, a
// zeroed block and a short buffer; more in testdata/fuzz/FuzzX/.

// bs is the seeds' block size.
const bs = 4096

// seedUUID is the seeds' volume UUID.
var seedUUID = ondisk.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

func nativeFuzz(f *testing.F, target func([]byte) (int, error), enc func([]byte)) {
	b := make([]byte, bs)
	enc(b)
	f.Add(b)
	f.Add(make([]byte, bs))
	f.Add([]byte("short"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := target(data); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzDecodeEntry(f *testing.F) {
	nativeFuzz(f, fuzzDecodeEntry, func(b []byte) {
		(&ondisk.Entry{
			UUID: seedUUID, Seq: 42, GroupSeq: 41, GroupCount: 3, Piece: 7,
			PrevRoot: ondisk.Ref{Addr: 99, Seq: 40},
			Ptrs:     []ondisk.Ref{{Addr: 10, Seq: 40}, {Addr: 11, Seq: 30}},
			Covers:   []ondisk.Cover{{Addr: 500, CRC: 0xdeadbeef}},
			Payload:  bytes.Repeat([]byte{0xab}, ondisk.PayloadSize(bs)),
			HasLive:  true, Live: 0x0123456789abcdef,
		}).Encode(b)
	})
}

func FuzzDecodeCheckpoint(f *testing.F) {
	nativeFuzz(f, fuzzDecodeCheckpoint, func(b []byte) {
		// Version 4: copies and the checkpoint that wrote each block.
		(&ondisk.Checkpoint{UUID: seedUUID, Seq: 3, NextSeq: 4, DirBlocks: []uint64{9, 10}, NumPieces: 2, Extra: []uint32{5, 7},
			DirCopies: []uint64{11, 12}, DirSeqs: []uint64{1, 3}}).Encode(b)
	})
}

func FuzzDecodeDirBlock(f *testing.F) {
	nativeFuzz(f, fuzzDecodeDirBlock, func(b []byte) {
		(&ondisk.DirBlock{UUID: seedUUID, CkptSeq: 1, Entries: []ondisk.DirEntry{{Piece: 1}, {Piece: 2, At: ondisk.Ref{Addr: 9, Seq: 3}, Copies: true, Pair: 10}}}).Encode(b)
	})
}

func FuzzDecodePieceCopy(f *testing.F) {
	nativeFuzz(f, fuzzDecodePieceCopy, func(b []byte) {
		(&ondisk.PieceCopy{UUID: seedUUID, Piece: 4, Seq: 9, Index: 1, Payload: []byte("map")}).Encode(b)
	})
}

func FuzzDecodeTail(f *testing.F) {
	nativeFuzz(f, fuzzDecodeTail, func(b []byte) { (&ondisk.Tail{UUID: seedUUID, NextSeq: 1}).Encode(b) })
}

func FuzzDecodeSuperblock(f *testing.F) {
	nativeFuzz(f, fuzzDecodeSuperblock, func(b []byte) {
		(&ondisk.Superblock{BlockSize: bs, NumBlocks: 100, Kind: "vlfs", ModelJSON: []byte("{}")}).Encode(b)
	})
}
