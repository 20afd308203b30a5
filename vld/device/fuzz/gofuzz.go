//go:build gofuzz

package fuzz

// FuzzGoParseState is the go-fuzz adapter of FuzzParseState: the same
// target function (the bytes are the text), a failed property turned into
// a panic (a go-fuzz crasher).
// make go-fuzz TARGET=vld/device/fuzz.FuzzParseState builds and runs it.
func FuzzGoParseState(data []byte) int {
	n, err := fuzzParseStateBytes(data)
	if err != nil {
		panic(err)
	}
	return n
}
