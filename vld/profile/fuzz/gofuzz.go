//go:build gofuzz

package fuzz

// FuzzGoDecode is the go-fuzz adapter of FuzzDecode: fuzzDecode, a failed
// property turned into a panic (a crasher).
// make go-fuzz TARGET=vld/profile/fuzz.FuzzDecode builds and runs it.
func FuzzGoDecode(data []byte) int {
	n, err := fuzzDecode(data)
	if err != nil {
		panic(err)
	}
	return n
}

// FuzzGoIdentify is the go-fuzz adapter of FuzzIdentify: fuzzIdentify, a
// failed property turned into a panic (a crasher).
// make go-fuzz TARGET=vld/profile/fuzz.FuzzIdentify builds and runs it.
func FuzzGoIdentify(data []byte) int {
	n, err := fuzzIdentify(data)
	if err != nil {
		panic(err)
	}
	return n
}
