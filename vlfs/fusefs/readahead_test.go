package fusefs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadaheadPlan feeds READ sequences to the planner and checks which
// file ranges it hints: a sequential reader (slightly out of order, as the
// kernel's async readahead sends them) gets a window ahead in big steps; a
// random reader gets none; a second pass starts over.
func TestReadaheadPlan(t *testing.T) {
	const w = 1 << 20
	const k = 128 << 10
	type read struct {
		off, size int64
		from, to  int64
		hint      bool
	}
	tests := []struct {
		name  string
		reads []read
	}{
		{"sequential", []read{
			{0, k, k, k + w, true},
			{k, k, 0, 0, false},              // hinted far enough ahead
			{3 * k, k, k + w, 4*k + w, true}, // a quarter window more: hint it
			{2 * k, k, 0, 0, false},          // out of order
			{w/4 + 4*k, k, 4*k + w, 7*k + w, true},
		}},
		{"random", []read{
			{100 * w, 4096, 0, 0, false},
			{7 * w, 4096, 0, 0, false},
			{50 * w, 4096, 0, 0, false},
		}},
		{"second pass", []read{
			{0, k, k, k + w, true},
			{w, k, w + k, 2*w + k, true},
			{2 * w, k, 2*w + k, 3*w + k, true},
			{0, k, 0, 0, false}, // back to the start: a new pass
			{k, k, 2 * k, 2*k + w, true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ra := newTestReadahead(t, w)
			for i, r := range tc.reads {
				from, to, ok := ra.plan(2, r.off, r.size)
				if ok != r.hint || from != r.from || to != r.to {
					t.Errorf("read %d at %d+%d: hint %v [%d, %d), want %v [%d, %d)", i, r.off, r.size, ok, from, to, r.hint, r.from, r.to)
				}
			}
		})
	}
	var off imageReadahead
	off.open("", w)
	if _, _, ok := off.plan(2, 0, 4096); ok {
		t.Error("no image: planned a hint")
	}
}

// TestReadaheadShortHint: a hint that maxHintRanges cut short leaves the
// rest of the window to the next READ, rather than marking it hinted, also
// when another reader has planned further meanwhile.
func TestReadaheadShortHint(t *testing.T) {
	const w = 1 << 20
	const k = 128 << 10
	ra := newTestReadahead(t, w)
	if from, to, ok := ra.plan(2, 0, k); !ok || from != k || to != k+w {
		t.Fatalf("first READ: hint %v [%d, %d)", ok, from, to)
	}
	ra.shortOf(2, k+w, k+w/8)
	if from, to, ok := ra.plan(2, k, k); !ok || from != k+w/8 || to != 2*k+w {
		t.Errorf("after a short hint: hint %v [%d, %d), want [%d, %d)", ok, from, to, k+w/8, 2*k+w)
	}
	// Two readers: the last plan (reader A's) hinted up to 2k+w; reader
	// B plans on beyond it, and only then does A's hint turn out short.
	fromB, toB, okB := ra.plan(2, 2*k+w/4, k)
	if !okB || toB <= 2*k+w {
		t.Fatalf("second reader: hint %v [%d, %d)", okB, fromB, toB)
	}
	ra.shortOf(2, 2*k+w, 2*k+w/2) // A's window [.., 2k+w) reached only 2k+w/2
	if from, to, ok := ra.plan(2, 2*k+w/4+k, k); !ok || from != 2*k+w/2 || to != 2*k+w {
		t.Errorf("after a short hint behind another reader's: hint %v [%d, %d), want the gap [%d, %d)", ok, from, to, 2*k+w/2, 2*k+w)
	}
	if from, to, ok := ra.plan(2, 2*k+w/4+2*k, k); ok && from < toB {
		t.Errorf("the gap was hinted twice, or the window went back: [%d, %d)", from, to)
	}
}

// newTestReadahead is a planner over an empty image file, closed when the
// test ends.
func newTestReadahead(t *testing.T, window int64) *imageReadahead {
	t.Helper()
	ra := &imageReadahead{}
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ra.open(img, window)
	t.Cleanup(ra.close)
	return ra
}
