package fusefs

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vlfs"
)

// TestRefreshWindow walks the refresher through one inode's fsyncs with
// explicit times: the first invalidates at once, those within the window
// wait and are handed out once it has passed, and a size change or close
// ends the waiting.
func TestRefreshWindow(t *testing.T) {
	var ran atomic.Int32
	var r blockRefresher
	r.init(func() { ran.Add(1) })
	const n = vlfs.Ino(7)
	t0 := time.Unix(1000, 0)
	step := func(name string, got, want bool) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
	step("the first fsync does not wait", r.wait(n, t0), false)
	r.done(n, t0)
	step("fsync 10 ms later waits", r.wait(n, t0.Add(10*time.Millisecond)), true)
	step("another at 20 ms waits", r.wait(n, t0.Add(20*time.Millisecond)), true)
	if got := r.due(t0.Add(30 * time.Millisecond)); len(got) != 0 {
		t.Fatalf("due before the window passed: %v", got)
	}
	if r.timer == nil {
		t.Fatal("no timer armed for the pending inode")
	}
	got := r.due(t0.Add(refreshWindow))
	if len(got) != 1 || got[0] != n {
		t.Fatalf("due at the window's end: %v, want [%d]", got, n)
	}
	if len(r.due(t0.Add(2*refreshWindow))) != 0 {
		t.Fatal("an inode handed out twice")
	}
	r.done(n, t0.Add(refreshWindow))
	step("fsync a window after the last invalidation", r.wait(n, t0.Add(2*refreshWindow)), false)

	// A size change forgets the history: the next fsync invalidates at once.
	r.done(n, t0.Add(3*refreshWindow))
	r.forget(n)
	step("fsync right after a truncate", r.wait(n, t0.Add(3*refreshWindow+time.Millisecond)), false)

	// Once closed, nothing is pending and nothing more is sent.
	r.done(n, t0.Add(4*refreshWindow))
	step("pending before close", r.wait(n, t0.Add(4*refreshWindow+time.Millisecond)), true)
	r.close()
	if r.timer != nil || len(r.pending) != 0 {
		t.Fatalf("close left timer %v, pending %v", r.timer, r.pending)
	}
	step("after close", r.wait(n, t0.Add(10*refreshWindow)), true)
	if got := r.due(t0.Add(10 * refreshWindow)); len(got) != 0 {
		t.Fatalf("due after close: %v", got)
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("the timer ran %d times in a test that never waited for it", n)
	}
}
