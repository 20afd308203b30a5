package crashtest

import (
	"errors"
	"testing"
)

func TestParseWorkload(t *testing.T) {
	good := "# name: w1\nmkdir A\ncreat A/f\n---\n# a comment\nwrite A/f 0 100\nfsync A/f\n"
	w, err := ParseWorkloadString(good)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "w1" || len(w.Setup) != 2 || len(w.Ops) != 2 || !w.Ops[1].IsPersist() {
		t.Fatalf("parsed %+v", w)
	}
	if w.String() != "# name: w1\nmkdir A\ncreat A/f\n---\nwrite A/f 0 100\nfsync A/f\n" {
		t.Errorf("String:\n%s", w)
	}
	bad := []struct{ name, text string }{
		{"unknown op", "frobnicate A"},
		{"too few args", "write A/f 0"},
		{"too many args", "sync now"},
		{"negative number", "write A/f -1 10"},
		{"not a number", "truncate A/f big"},
		{"huge write", "write A/f 0 999999999"},
		{"bad falloc flag", "falloc A/f 0 10 collapse"},
		{"bad mode", "chmod A/f 999"},
		{"two markers", "mkdir A\n---\n---\n"},
		{"compact: not a number", "compact all"},
		{"compact: too many steps", "compact 10001"},
		{"compact: no steps", "compact 0"},
		{"compact: two arguments", "compact 5 5"},
	}
	for _, text := range []string{"compact", "compact 1", "compact 10000"} {
		if w, err := ParseWorkloadString(text); err != nil || len(w.Ops) != 1 || w.Ops[0].IsPersist() {
			t.Errorf("%q: %+v, %v (want one op, not a persistence point)", text, w, err)
		}
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ParseWorkloadString(c.text); !errors.Is(err, ErrBadWorkload) {
				t.Errorf("%q: got %v, want ErrBadWorkload", c.text, err)
			}
		})
	}
}
