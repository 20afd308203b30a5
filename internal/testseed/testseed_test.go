package testseed

import "testing"

func TestPick(t *testing.T) {
	if got := Pick(t, 42, "x.seed"); got != 42 {
		t.Fatalf("a flagged seed came back as %d", got)
	}
	a := Pick(t, 0, "x.seed")
	if a == 0 {
		t.Fatal("a fresh seed is 0, which replays as \"pick a fresh one\"")
	}
}
