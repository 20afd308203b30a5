package fuzz

import (
	"fmt"
	"reflect"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/device"
)

// This file holds device's fuzz target, shared by the native target
// FuzzParseState (fuzz_test.go) and, through fuzzParseStateBytes, the
// go-fuzz adapter FuzzGoParseState (gofuzz.go, built only with the gofuzz
// tag) (docs/fuzzing.md).

// fuzzParseState: device.ParseState never panics, and whatever it accepts
// prints to a canonical string that parses back to the same state; no
// input may allocate more than fuzzlimit.AllocLimit or run longer than
// fuzzlimit.Hang. It returns go-fuzz's score (1: text parsed) and an error
// when a property fails.
func fuzzParseState(text string) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		s, err := device.ParseState(text)
		if err != nil {
			return 0, nil
		}
		again, err := device.ParseState(s.String())
		if err != nil || !reflect.DeepEqual(again, s) {
			return 0, fmt.Errorf("%q -> %+v -> %q -> %+v, %v", text, s, s.String(), again, err)
		}
		return 1, nil
	})
}

// fuzzParseStateBytes is fuzzParseState on go-fuzz's bytes: all of them are
// the text.
func fuzzParseStateBytes(data []byte) (int, error) {
	return fuzzParseState(string(data))
}
