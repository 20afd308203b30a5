package fuzz

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/profile"
)

// This file holds the fuzz targets of package profile, shared by the
// native targets FuzzDecode and FuzzIdentify (fuzz_test.go) and their
// go-fuzz adapters FuzzGoDecode and FuzzGoIdentify (gofuzz.go).
// Each returns go-fuzz's score and an error when a property fails; no
// input may allocate more than fuzzlimit.AllocLimit or run longer than
// fuzzlimit.Hang.

// fuzzDecode is the profile decoder's fuzz target: Decode must never
// panic, its errors wrap ErrCorrupt, and a profile it accepts must survive
// what a consumer does (Summarize, every Row) and encode again. Its score
// is 1 when the input decoded.
func fuzzDecode(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) { return fuzzDecodeOnce(data) })
}

func fuzzDecodeOnce(data []byte) (int, error) {
	p, err := profile.Decode(data)
	if err != nil {
		if !errors.Is(err, profile.ErrCorrupt) {
			return 0, fmt.Errorf("error not wrapping ErrCorrupt: %w", err)
		}
		return 0, nil
	}
	p.Summarize()
	for i := 0; i < p.Grid.Thinks; i++ {
		p.Row(i)
	}
	if _, err := profile.Encode(p); err != nil {
		return 0, fmt.Errorf("valid profile does not encode: %w", err)
	}
	return 1, nil
}

// fuzzIdentify is Identify's fuzz target: Identify must not panic on any
// bytes. Its score is 1 when the bytes were identified.
func fuzzIdentify(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		if profile.Identify(data) != "" {
			return 1, nil
		}
		return 0, nil
	})
}
