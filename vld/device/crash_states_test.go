package device

import (
	"math/rand"
	"slices"
	"testing"
)

func TestStatesCount(t *testing.T) {
	// The scripted record has epochs of 2, 3 and 2 writes: 3 boundaries,
	// 3 torn states, and min(subsets, 2^n-1) subsets per epoch.
	cases := []struct{ subsets, want int }{
		{0, 3 + 0 + 3},
		{1, 3 + 3 + 3},
		{3, 3 + (3 + 3 + 3) + 3},
		{5, 3 + (3 + 5 + 3) + 3},
		{100, 3 + (3 + 7 + 3) + 3},
	}
	c := scripted(t)
	for _, tc := range cases {
		if got := len(c.States(rand.New(rand.NewSource(1)), tc.subsets)); got != tc.want {
			t.Errorf("subsets=%d: %d states, want %d", tc.subsets, got, tc.want)
		}
	}
	empty := NewCrash(NewMem(512))
	if got := empty.States(nil, 10); len(got) != 1 || got[0].String() != "flushes=0" {
		t.Errorf("empty record: %v", got)
	}
}

func TestStatesExhaustiveWhenSmall(t *testing.T) {
	c := scripted(t)
	var epoch1 [][]int
	for _, s := range c.States(rand.New(rand.NewSource(1)), 100) {
		if s.Flushes == 1 && s.Torn == nil && len(s.Extra) > 0 {
			epoch1 = append(epoch1, s.Extra)
		}
	}
	want := [][]int{{3}, {4}, {3, 4}, {5}, {3, 5}, {4, 5}, {3, 4, 5}}
	if !slices.EqualFunc(epoch1, want, slices.Equal) {
		t.Fatalf("epoch 1 subsets = %v, want %v", epoch1, want)
	}
}

func TestStatesDeterministic(t *testing.T) {
	c := bigEpoch(t, 12)
	a := stateStrings(c.States(rand.New(rand.NewSource(42)), 20))
	b := stateStrings(c.States(rand.New(rand.NewSource(42)), 20))
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different states")
	}
	if len(a) != 1+20+1+1 { // boundary 0, 20 subsets + torn of epoch 0, boundary 1
		t.Fatalf("%d states, want 23", len(a))
	}
	if d := stateStrings(c.States(rand.New(rand.NewSource(43)), 20)); slices.Equal(a, d) {
		t.Fatal("different seeds gave identical random subsets")
	}
}

// TestStatesValid: every listed state builds, random subsets are distinct,
// non-empty and in issue order, and torn writes tear on a sector boundary
// strictly inside the write, with each sector wholly old or wholly new.
func TestStatesValid(t *testing.T) {
	for _, c := range []*Crash{scripted(t), bigEpoch(t, 12)} {
		seen := map[string]bool{}
		for _, s := range c.States(rand.New(rand.NewSource(7)), 20) {
			if seen[s.String()] {
				t.Errorf("state %v listed twice", s)
			}
			seen[s.String()] = true
			if !slices.IsSorted(s.Extra) {
				t.Errorf("%v: extra not in issue order", s)
			}
			if _, err := c.Image(s); err != nil {
				t.Errorf("%v: %v", s, err)
			}
			if s.Torn != nil {
				checkTorn(t, c, s)
			}
		}
	}
}

func checkTorn(t *testing.T, c *Crash, s State) {
	t.Helper()
	op := c.Ops()[s.Torn.Write]
	epoch := c.Epoch(s.Flushes)
	if want := epoch[:slices.Index(epoch, s.Torn.Write)]; !slices.Equal(s.Extra, want) {
		t.Errorf("%v: extra %v, want the epoch's writes before the torn one %v", s, s.Extra, want)
	}
	end := op.Off + int64(s.Torn.Bytes)
	inside := s.Torn.Bytes > 0 && s.Torn.Bytes < len(op.Data) && end%Sector == 0
	oneSector := op.Off/Sector == (op.Off+int64(len(op.Data))-1)/Sector
	if !inside && !(oneSector && s.Torn.Bytes == 0) {
		t.Errorf("%v: prefix %d of write [%d,+%d) is not a sector cut inside it", s, s.Torn.Bytes, op.Off, len(op.Data))
	}
	// Image with and without the torn write: the torn range is new bytes up
	// to the cut and old bytes after it.
	before, err := c.Image(State{Flushes: s.Flushes, Extra: s.Extra})
	if err != nil {
		t.Fatal(err)
	}
	torn, err := c.Image(s)
	if err != nil {
		t.Fatal(err)
	}
	old, got := before.Bytes(), torn.Bytes()
	for i, b := range op.Data {
		at := op.Off + int64(i)
		want := old[at]
		if i < s.Torn.Bytes {
			want = b
		}
		if got[at] != want {
			t.Fatalf("%v: byte %d is %#x, want %#x", s, at, got[at], want)
		}
	}
}

// bigEpoch records n 1 KiB writes, at unaligned offsets, in one epoch after a flush.
func bigEpoch(t *testing.T, n int) *Crash {
	t.Helper()
	c := NewCrash(NewMem(int64(n) * 2048))
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		mustWrite(t, c, pattern(1024, byte(i)), int64(i)*2048+100)
	}
	return c
}

func stateStrings(states []State) []string {
	var out []string
	for _, s := range states {
		out = append(out, s.String())
	}
	return out
}
