//go:build gofuzz

package fuzz

// FuzzGoParse is the go-fuzz adapter of FuzzParse: the same target
// function, a failed property turned into a panic (a go-fuzz crasher).
// make go-fuzz TARGET=vld/disk/fuzz.FuzzParse builds and runs it.
func FuzzGoParse(data []byte) int {
	n, err := fuzzParse(data)
	if err != nil {
		panic(err)
	}
	return n
}

// FuzzGoServicePosition is the go-fuzz adapter of FuzzServicePosition:
// fuzzServicePositionBytes decodes the typed arguments from the bytes.
// make go-fuzz TARGET=vld/disk/fuzz.FuzzServicePosition builds and runs it.
func FuzzGoServicePosition(data []byte) int {
	n, err := fuzzServicePositionBytes(data)
	if err != nil {
		panic(err)
	}
	return n
}
