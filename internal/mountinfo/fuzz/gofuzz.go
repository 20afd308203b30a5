//go:build gofuzz

package fuzz

// FuzzGoParseLine is the go-fuzz adapter of FuzzParseLine: the same target
// function (the bytes are the line), a failed property turned into a
// panic (a go-fuzz crasher).
// make go-fuzz TARGET=internal/mountinfo/fuzz.FuzzParseLine builds and runs
// it.
func FuzzGoParseLine(data []byte) int {
	n, err := fuzzParseLineBytes(data)
	if err != nil {
		panic(err)
	}
	return n
}
