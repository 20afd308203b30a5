package fuzz

import (
	"encoding/binary"
	"fmt"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// This file holds rangedisk's fuzz target, shared by the native target
// FuzzBitmapDesc (fuzz_test.go) and, through fuzzBitmapDescBytes, the
// go-fuzz adapter FuzzGoBitmapDesc (gofuzz.go, built only with the gofuzz
// tag) (docs/fuzzing.md).

// fuzzBitmapDesc: the bitmap descriptor [begin, end) whose free bitmap is
// raw (little-endian 64-bit words; a trailing partial word is dropped)
// validates (Desc.Runs), for a one-block write on a disk of 1<<20 blocks,
// without panicking, and every run it yields is inside its range and made
// of free blocks; no input may allocate more than fuzzlimit.AllocLimit or
// run longer than fuzzlimit.Hang. It returns go-fuzz's score (1: the descriptor
// validated) and an error when a property fails.
func fuzzBitmapDesc(begin, end int64, raw []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		words := make([]uint64, len(raw)/8)
		for i := range words {
			for j := range 8 {
				words[i] |= uint64(raw[i*8+j]) << (8 * j)
			}
		}
		runs, err := rangedisk.Bitmap(begin, end, words).Runs(1<<20, 1, 1)
		if err != nil {
			return 0, nil
		}
		for _, e := range runs {
			if e.Begin < begin || e.End > end || e.Len() <= 0 {
				return 0, fmt.Errorf("run %v outside [%d, %d)", e, begin, end)
			}
			for b := e.Begin; b < e.End; b++ {
				if i := b - begin; words[i/64]&(1<<uint(i%64)) == 0 {
					return 0, fmt.Errorf("run %v holds used block %d", e, b)
				}
			}
		}
		return 1, nil
	})
}

// fuzzBitmapDescBytes maps go-fuzz's bytes onto fuzzBitmapDesc's
// arguments: begin (int64, little-endian, bytes 0-7), end (int64, 8-15),
// raw (the rest). A shorter input scores 0.
func fuzzBitmapDescBytes(data []byte) (int, error) {
	if len(data) < 16 {
		return 0, nil
	}
	le := binary.LittleEndian
	return fuzzBitmapDesc(int64(le.Uint64(data)), int64(le.Uint64(data[8:])), data[16:])
}
