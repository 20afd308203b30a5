package fusefs

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/vlfs"
)

// fakeTimer records that it was stopped; it never fires.
type fakeTimer struct{ stopped bool }

func (f *fakeTimer) Stop() bool { was := !f.stopped; f.stopped = true; return was }

// TestRefreshWindow walks the refresher through fsyncs of three inodes with
// explicit times and a fake timer: the first fsync of a window invalidates
// at once, later ones wait and are handed out once their window has
// passed, the timer is armed for the earliest window's end, and a forget
// or close ends the waiting.
func TestRefreshWindow(t *testing.T) {
	var r blockRefresher
	r.init(func() { t.Error("the fake timer ran") })
	var armed []time.Duration
	var timers []*fakeTimer
	r.after = func(d time.Duration, _ func()) stopper {
		armed = append(armed, d)
		timers = append(timers, &fakeTimer{})
		return timers[len(timers)-1]
	}
	var stamps stampTable
	stamps.init()
	ms := func(k int) time.Time { return time.Unix(1000, 0).Add(time.Duration(k) * time.Millisecond) }
	waits := func(n vlfs.Ino, at time.Time) bool { _, w := r.wait(n, at); return w }
	dueAt := func(at time.Time) []vlfs.Ino { ns, _ := r.due(at); return ns }
	inv := func(n vlfs.Ino, at time.Time) { r.record(&stamps, r.epoch, vlfs.Attr{Ino: n, Blocks: 8}, at) }
	check := func(name string, got, want bool) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
	}
	const a, b, c = vlfs.Ino(7), vlfs.Ino(8), vlfs.Ino(9)

	check("a's first fsync waits", waits(a, ms(0)), false)
	inv(a, ms(0))
	check("a again at 10 ms waits", waits(a, ms(10)), true)
	check("and at 20 ms", waits(a, ms(20)), true)
	if !slices.Equal(armed, []time.Duration{40 * time.Millisecond}) {
		t.Fatalf("timer armed for %v, want once for 40 ms (a's window ends at 50)", armed)
	}
	// b's window ends later: the timer stays. c's ends earlier: it moves.
	inv(b, ms(5))
	check("b at 21 ms waits", waits(b, ms(21)), true)
	inv(c, ms(-30))
	check("c at 11 ms waits", waits(c, ms(11)), true)
	if !slices.Equal(armed, []time.Duration{40 * time.Millisecond, 9 * time.Millisecond}) || !timers[0].stopped {
		t.Fatalf("timer armed for %v (first stopped: %v), want 40 ms then 9 ms for c's window end at 20", armed, timers[0].stopped)
	}
	got := dueAt(ms(20))
	if !slices.Equal(got, []vlfs.Ino{c}) {
		t.Fatalf("due at 20 ms: %v, want [c]", got)
	}
	if !slices.Equal(armed[2:], []time.Duration{30 * time.Millisecond}) {
		t.Fatalf("after c, timer armed for %v, want 30 ms (a's window end)", armed[2:])
	}
	got = dueAt(ms(50))
	if !slices.Equal(got, []vlfs.Ino{a}) {
		t.Fatalf("due at 50 ms: %v, want [a]", got)
	}
	inv(a, ms(50))
	// A forget (FORGET, truncate) clears b and makes an invalidation that
	// began before it record nothing.
	epoch := r.epoch
	r.forget(b)
	r.record(&stamps, epoch, vlfs.Attr{Ino: b, Blocks: 16}, ms(52))
	if !stamps.blocksChanged(vlfs.Attr{Ino: b, Blocks: 16}) {
		t.Fatal("an invalidation that raced with a forget recorded its count")
	}
	check("b's next fsync after the forget", waits(b, ms(53)), false)
	if got := dueAt(ms(200)); len(got) != 0 {
		t.Fatalf("due at 200 ms: %v, want nothing pending", got)
	}
	// Closing stops the timer; nothing waits or is handed out afterwards.
	check("a at 60 ms waits", waits(a, ms(60)), true)
	live := timers[len(timers)-1]
	r.close()
	if !live.stopped || r.timer != nil || len(r.pending) != 0 {
		t.Fatalf("close left timer stopped=%v, timer %v, pending %v", live.stopped, r.timer, r.pending)
	}
	check("after close", waits(a, ms(500)), true)
	if got := dueAt(ms(500)); len(got) != 0 {
		t.Fatalf("due after close: %v", got)
	}
}

// TestRefreshPendingRecovers: the timer's work runs outside any request;
// a panic in it (here a server without a file system) is logged, not fatal.
func TestRefreshPendingRecovers(t *testing.T) {
	var logged []string
	s := &Server{opt: Options{Options: fuseserve.Options{Logf: func(f string, v ...any) { logged = append(logged, f) }}}}
	s.refresh.init(s.refreshPending)
	s.refresh.after = func(time.Duration, func()) stopper { return &fakeTimer{} }
	s.stamps.init()
	s.refresh.record(&s.stamps, s.refresh.epoch, vlfs.Attr{Ino: 5}, time.Unix(0, 0))
	if _, wait := s.refresh.wait(5, time.Unix(0, 0).Add(time.Millisecond)); !wait {
		t.Fatal("inode 5 did not wait within its window")
	}
	s.refresh.last[5] = time.Unix(0, 0).Add(-time.Hour) // its window has passed
	s.refreshPending()
	if len(logged) != 1 || !strings.Contains(logged[0], "panic refreshing st_blocks") {
		t.Fatalf("logged %q, want one panic report", logged)
	}
}
