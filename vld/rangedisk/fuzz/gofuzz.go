//go:build gofuzz

package fuzz

// FuzzGoBitmapDesc is the go-fuzz adapter of FuzzBitmapDesc: the same
// target function, its arguments decoded from the bytes by
// fuzzBitmapDescBytes, a failed property turned into a panic (a go-fuzz
// crasher). make go-fuzz TARGET=vld/rangedisk/fuzz.FuzzBitmapDesc builds
// and runs it.
func FuzzGoBitmapDesc(data []byte) int {
	n, err := fuzzBitmapDescBytes(data)
	if err != nil {
		panic(err)
	}
	return n
}
