//go:build gofuzz

package vlfstest

import "sync"

// fuzzImage is the base image of FuzzGoMountCorrupt, built once per
// go-fuzz worker process. (Package-level state exists only in the go-fuzz
// build: a go-fuzz entry point has nowhere else to keep it.)
var fuzzImage = sync.OnceValues(fuzzBaseImage)

// FuzzGoMountCorrupt is the go-fuzz adapter of FuzzMountCorrupt: the same
// target function, a failed property turned into a panic (a crasher).
// make go-fuzz TARGET=vlfs/vlfstest.FuzzMountCorrupt builds and runs it.
func FuzzGoMountCorrupt(data []byte) int {
	img, err := fuzzImage()
	if err != nil {
		panic(err)
	}
	n, err := fuzzMount(img, data)
	if err != nil {
		panic(err)
	}
	return n
}

// FuzzGoRepair is the go-fuzz adapter of FuzzRepair.
// make go-fuzz TARGET=vlfs/vlfstest.FuzzRepair builds and runs it.
func FuzzGoRepair(data []byte) int {
	img, err := fuzzImage()
	if err != nil {
		panic(err)
	}
	n, err := fuzzRepair(img, data)
	if err != nil {
		panic(err)
	}
	return n
}

// FuzzGoOpsModel is the go-fuzz adapter of FuzzOpsModel: the same target
// function, a disagreement with the model turned into a panic (a crasher).
// make go-fuzz TARGET=vlfs/vlfstest.FuzzOpsModel builds and runs it.
func FuzzGoOpsModel(data []byte) int {
	n, err := fuzzOpsModel(data)
	if err != nil {
		panic(err)
	}
	return n
}
