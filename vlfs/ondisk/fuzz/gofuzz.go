//go:build gofuzz

package fuzz

// The go-fuzz adapters: each calls the same target function as the
// native target of the same name with "Go" after "Fuzz" (FuzzInode -> FuzzGoInode)
// and turns a failed property into a panic, which go-fuzz records as a
// crasher. Build one with go-fuzz-build -func FuzzGoInode (make go-fuzz
// TARGET=vlfs/ondisk/fuzz.FuzzInode does it).

func goFuzz(target func([]byte) (int, error), data []byte) int {
	n, err := target(data)
	if err != nil {
		panic(err)
	}
	return n
}

func FuzzGoInode(data []byte) int      { return goFuzz(fuzzInode, data) }
func FuzzGoInodeBlock(data []byte) int { return goFuzz(fuzzInodeBlock, data) }
func FuzzGoIndirect(data []byte) int   { return goFuzz(fuzzIndirect, data) }
func FuzzGoDirBlock(data []byte) int   { return goFuzz(fuzzDirBlock, data) }
func FuzzGoXattrBlock(data []byte) int { return goFuzz(fuzzXattrBlock, data) }
func FuzzGoPiece(data []byte) int      { return goFuzz(fuzzPiece, data) }
func FuzzGoSuperblock(data []byte) int { return goFuzz(fuzzSuperblock, data) }
func FuzzGoRecord(data []byte) int     { return goFuzz(fuzzRecord, data) }
