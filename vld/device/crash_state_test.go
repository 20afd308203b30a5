package device

import (
	"errors"
	"reflect"
	"testing"
)

func TestStateStringRoundTrip(t *testing.T) {
	cases := []struct {
		s    State
		text string
	}{
		{State{}, "flushes=0"},
		{State{Flushes: 3, Extra: []int{7, 9}, Torn: &Torn{Write: 11, Bytes: 1536}}, "flushes=3 extra=[7,9] torn=11:1536"},
		{State{Flushes: 1, Extra: []int{4}}, "flushes=1 extra=[4]"},
		{State{Flushes: 2, Torn: &Torn{Write: 5, Bytes: 0}}, "flushes=2 torn=5:0"},
	}
	for _, c := range cases {
		if got := c.s.String(); got != c.text {
			t.Errorf("String = %q, want %q", got, c.text)
		}
		got, err := ParseState(c.text)
		if err != nil || !reflect.DeepEqual(got, c.s) {
			t.Errorf("ParseState(%q) = %+v, %v; want %+v", c.text, got, err, c.s)
		}
	}
}

func TestParseStateLenient(t *testing.T) {
	got, err := ParseState("  torn=1:2   extra=[]  flushes=4 ")
	if err != nil || got.String() != "flushes=4 torn=1:2" || got.Extra != nil {
		t.Fatalf("ParseState = %+v, %v", got, err)
	}
}

func TestParseStateRejects(t *testing.T) {
	bad := []string{
		"", "   ", "flushes", "flushes=", "flushes=-1", "flushes=x", "flushes=1 flushes=2",
		"extra=[1]", "flushes=1 extra=1", "flushes=1 extra=[1,]", "flushes=1 extra=[,1]",
		"flushes=1 extra=[-3]", "flushes=1 extra=[", "flushes=1 extra=]", "flushes=1 torn=3",
		"flushes=1 torn=3:", "flushes=1 torn=:3", "flushes=1 torn=3:-1", "flushes=1 bogus=2",
		"flushes=99999999999999999999999",
	}
	for _, text := range bad {
		if s, err := ParseState(text); !errors.Is(err, ErrBadState) {
			t.Errorf("ParseState(%q) = %+v, %v; want ErrBadState", text, s, err)
		}
	}
}

// FuzzParseState runs fuzzParseState (fuzz.go): ParseState never panics, and
// whatever it accepts prints to a canonical string that parses back to the
// same state. Its go-fuzz adapter FuzzGoParseState shares the target.
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
