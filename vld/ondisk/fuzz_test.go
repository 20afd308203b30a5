package ondisk

import "testing"

// The native fuzz targets: each runs the target function of fuzz.go that
// its go-fuzz adapter (gofuzz.go) runs too. Seeds: one valid record, a
// zeroed block and a short buffer; more in testdata/fuzz/FuzzX/.

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
	nativeFuzz(f, fuzzDecodeEntry, func(b []byte) { sampleEntry().Encode(b) })
}

func FuzzDecodeCheckpoint(f *testing.F) {
	nativeFuzz(f, fuzzDecodeCheckpoint, func(b []byte) {
		(&Checkpoint{UUID: testUUID, Seq: 1, NextSeq: 2, DirBlocks: []uint64{9}, NumPieces: 1, Extra: []uint32{5, 7}}).Encode(b)
	})
}

func FuzzDecodeDirBlock(f *testing.F) {
	nativeFuzz(f, fuzzDecodeDirBlock, func(b []byte) {
		(&DirBlock{UUID: testUUID, CkptSeq: 1, Entries: []DirEntry{{Piece: 1}, {Piece: 2, At: Ref{Addr: 9, Seq: 3}, Copies: true, Pair: 10}}}).Encode(b)
	})
}

func FuzzDecodePieceCopy(f *testing.F) {
	nativeFuzz(f, fuzzDecodePieceCopy, func(b []byte) {
		(&PieceCopy{UUID: testUUID, Piece: 4, Seq: 9, Index: 1, Payload: []byte("map")}).Encode(b)
	})
}

func FuzzDecodeTail(f *testing.F) {
	nativeFuzz(f, fuzzDecodeTail, func(b []byte) { (&Tail{UUID: testUUID, NextSeq: 1}).Encode(b) })
}

func FuzzDecodeSuperblock(f *testing.F) {
	nativeFuzz(f, fuzzDecodeSuperblock, func(b []byte) {
		(&Superblock{BlockSize: bs, NumBlocks: 100, Kind: "vlfs", ModelJSON: []byte("{}")}).Encode(b)
	})
}
