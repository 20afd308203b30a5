//go:build gofuzz

package fuzz

// The go-fuzz adapters: each calls the same target function as the
// native target with "Go" after "Fuzz" (FuzzDecodeEntry -> FuzzGoDecodeEntry)
// and turns a failed property into a panic, which go-fuzz records as a
// crasher. make go-fuzz TARGET=vld/ondisk/fuzz.FuzzDecodeEntry builds and
// runs one.

func goFuzz(target func([]byte) (int, error), data []byte) int {
	n, err := target(data)
	if err != nil {
		panic(err)
	}
	return n
}

func FuzzGoDecodeEntry(data []byte) int      { return goFuzz(fuzzDecodeEntry, data) }
func FuzzGoDecodeCheckpoint(data []byte) int { return goFuzz(fuzzDecodeCheckpoint, data) }
func FuzzGoDecodeDirBlock(data []byte) int   { return goFuzz(fuzzDecodeDirBlock, data) }
func FuzzGoDecodeTail(data []byte) int       { return goFuzz(fuzzDecodeTail, data) }
func FuzzGoDecodeSuperblock(data []byte) int { return goFuzz(fuzzDecodeSuperblock, data) }
func FuzzGoDecodePieceCopy(data []byte) int  { return goFuzz(fuzzDecodePieceCopy, data) }
