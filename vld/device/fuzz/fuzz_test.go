package fuzz

import "testing"

// FuzzParseState runs fuzzParseState (fuzz.go): device.ParseState never
// panics, and whatever it accepts prints to a canonical string that parses
// back to the same state. Its go-fuzz adapter FuzzGoParseState shares the
// target.
func FuzzParseState(f *testing.F) {
	for _, seed := range []string{"flushes=3 extra=[7,9] torn=11:1536", "flushes=0", "flushes=1 extra=[] torn=0:0", "extra=[1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := fuzzParseState(text); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzParseStateBytes: go-fuzz's byte entry takes the bytes as the text.
func TestFuzzParseStateBytes(t *testing.T) {
	for _, c := range []struct {
		text  string
		score int
	}{{"flushes=3 extra=[7,9] torn=11:1536", 1}, {"flushes=0", 1}, {"", 0}, {"extra=[1", 0}} {
		if n, err := fuzzParseStateBytes([]byte(c.text)); n != c.score || err != nil {
			t.Errorf("%q: bytes entry = %d, %v; want %d, nil", c.text, n, err, c.score)
		}
	}
}
