package profile

import (
	"errors"
	"fmt"
)

// fuzzDecode is the profile decoder's fuzz target for go-fuzz (gofuzz.go):
// Decode must never panic, its errors wrap ErrCorrupt, and a profile it
// accepts must survive what a consumer does (Summarize, every Row) and
// encode again. The native FuzzDecode (profile_test.go) asserts the same
// in its own body. It returns go-fuzz's score (1: the input decoded) and
// an error when a property fails.
func fuzzDecode(data []byte) (int, error) {
	p, err := Decode(data)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			return 0, fmt.Errorf("error not wrapping ErrCorrupt: %w", err)
		}
		return 0, nil
	}
	p.Summarize()
	for i := 0; i < p.Grid.Thinks; i++ {
		p.Row(i)
	}
	if _, err := Encode(p); err != nil {
		return 0, fmt.Errorf("valid profile does not encode: %w", err)
	}
	return 1, nil
}
