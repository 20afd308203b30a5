package scratch

import "testing"

func TestSlicesGet(t *testing.T) {
	var s Slices[byte]
	a := s.Get(0, 8)
	a[0] = 7
	for _, tc := range []struct {
		name   string
		i, n   int
		same   bool // the slice kept at i before the call comes back
		length int
	}{
		{"kept again", 0, 8, true, 8},
		{"other length replaced", 0, 4, false, 4},
		{"new index", 3, 8, false, 8},
		{"past Keep never kept", Keep, 8, false, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if tc.i < len(s.kept) {
				before = s.kept[tc.i]
			}
			got := s.Get(tc.i, tc.n)
			if len(got) != tc.length {
				t.Fatalf("len %d, want %d", len(got), tc.length)
			}
			if same := before != nil && &got[0] == &before[0]; same != tc.same {
				t.Fatalf("same slice %v, want %v", same, tc.same)
			}
		})
	}
	if len(s.kept) > Keep {
		t.Fatalf("%d slices kept, want at most %d", len(s.kept), Keep)
	}
	if b := s.Get(Keep+1, 8); &b[0] == &s.Get(Keep+1, 8)[0] {
		t.Fatal("a slice past Keep came back twice")
	}
}
