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
