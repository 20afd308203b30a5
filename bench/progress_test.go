package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLines: in a log (not a terminal) a line comes at most every
// lineEvery, and always for the last step, with an estimate of time left.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	p := newProgressAt(&b, "demo", 4, now)
	clock = clock.Add(time.Second)
	p.Step("a") // 1 s after the start: too soon for a line
	clock = clock.Add(5 * time.Second)
	p.Step("b") // 6 s: a line, 2 of 4 done, ~6 s left
	clock = clock.Add(time.Second)
	p.Step("c") // too soon
	clock = clock.Add(time.Second)
	p.Step("d") // the last: always printed
	p.Done()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", b.String())
	}
	if !strings.Contains(lines[0], "demo: 2/4 ( 50%) b, elapsed 6s, left ~6s") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(lines[1], "4/4 (100%) d") || !strings.Contains(lines[1], "left ~0s") {
		t.Errorf("last line %q", lines[1])
	}
}

// TestProgressNil: a nil writer or an empty run gives a no-op.
func TestProgressNil(t *testing.T) {
	if p := NewProgress(nil, "x", 3); p != nil {
		t.Fatal("nil writer: want a nil *Progress")
	}
	var b bytes.Buffer
	p := NewProgress(&b, "x", 0)
	p.Step("a")
	p.Done()
	if b.Len() != 0 {
		t.Errorf("no-op progress wrote %q", b.String())
	}
}
