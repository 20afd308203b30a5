package liveline

import (
	"strings"
	"testing"
)

// A log (not a terminal) gets plain lines, one per key, no carriage returns.
func TestLogGetsPlainLines(t *testing.T) {
	var b strings.Builder
	l := New(&b)
	for i := 0; i <= 100; i++ {
		l.Show(strings.Repeat("#", i/10), strings.Repeat("#", i/10))
	}
	l.End()
	out := b.String()
	if strings.Contains(out, "\r") || strings.Count(out, "\n") != 11 {
		t.Fatalf("log output %q: want 11 plain lines", out)
	}
}
