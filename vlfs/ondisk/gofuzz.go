//go:build gofuzz

package ondisk

// Fuzz is the go-fuzz entry point: it feeds data to every decoder (the
// native targets in fuzz_test.go do the same one decoder at a time). It
// returns 1 when some decoder accepted the input.
func Fuzz(data []byte) int {
	score := 0
	if _, err := DecodeSuperblock(data); err == nil {
		score = 1
	}
	if _, err := DecodeInode(data, 1); err == nil {
		score = 1
	}
	if DecodeInodeBlock(data, 0, func(int, *Inode) error { return nil }) == nil {
		score = 1
	}
	if DecodeIndirect(data, 1, 1, make([]uint64, PerIndirect(len(data)))) == nil {
		score = 1
	}
	if DecodeDir(data, 1, func(DirEntry) error { return nil }) == nil {
		score = 1
	}
	if DecodeXattrs(data, 1, func(Xattr) error { return nil }) == nil {
		score = 1
	}
	if DecodePiece(data, 0, make([]uint64, PerPiece(len(data)))) == nil {
		score = 1
	}
	return score
}
