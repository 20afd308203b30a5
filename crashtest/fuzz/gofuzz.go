//go:build gofuzz

package fuzz

// FuzzGoParseWorkload is the go-fuzz adapter of FuzzParseWorkload: the
// same target function, a failed property turned into a panic (a go-fuzz
// crasher). make go-fuzz TARGET=crashtest/fuzz.FuzzParseWorkload runs it.
func FuzzGoParseWorkload(data []byte) int {
	n, err := fuzzParseWorkload(data)
	if err != nil {
		panic(err)
	}
	return n
}
