package fusefs

import (
	"sync"
	"testing"
	"time"
)

// TestPoolGrowsOnlyBeforeWaits drives the pool's bookkeeping the way readers
// and handlers do: taking a request starts no reader; a handler about to
// wait starts one while none is idle, up to max; and readers beyond min
// leave once enough are idle.
func TestPoolGrowsOnlyBeforeWaits(t *testing.T) {
	var p pool
	started := 0
	var mu sync.Mutex
	release := make(chan struct{})
	p.start(1, 3, func() {
		mu.Lock()
		started++
		mu.Unlock()
		<-release
	})
	steps := []struct {
		name              string
		do                func()
		wantIdle, wantAll int
	}{
		{"started", func() {}, 1, 1},
		{"one waits while idle readers remain: no growth", p.willWait, 1, 1},
		{"the only reader takes a request: no growth", p.busy, 0, 1},
		{"its handler will wait: grow", p.willWait, 1, 2},
		{"again, with the new reader idle: no growth", p.willWait, 1, 2},
		{"the new reader takes a request", p.busy, 0, 2},
		{"its handler will wait: grow to max", p.willWait, 1, 3},
		{"the last reader takes a request", p.busy, 0, 3},
		{"at max: no growth", p.willWait, 0, 3},
	}
	for _, s := range steps {
		s.do()
		if idle, total := p.size(); idle != s.wantIdle || total != s.wantAll {
			t.Fatalf("%s: idle %d total %d, want %d and %d", s.name, idle, total, s.wantIdle, s.wantAll)
		}
	}
	// Answering: the first goes back to idle, the others leave.
	for i, want := range []bool{true, false, false} {
		if got := p.idleAgain(); got != want {
			t.Fatalf("reader %d idleAgain = %v, want %v", i, got, want)
		}
	}
	if idle, total := p.size(); idle != 1 || total != 1 {
		t.Fatalf("after answering: idle %d total %d", idle, total)
	}
	p.exit()
	p.willWait() // ended: starts nothing
	if _, total := p.size(); total != 0 {
		t.Fatalf("a reader started after the connection ended: total %d", total)
	}
	close(release)
	p.wait()
	if started != 3 {
		t.Fatalf("started %d goroutines, want 3", started)
	}
}

// TestClientsConcurrent checks when a waiting handler needs another reader:
// never while one client thread makes every request, at once when a second
// thread appears or a READ is in progress, and no longer once the second
// thread has been quiet for the window. Requests of the kernel's own (thread
// 0) count for nobody.
func TestClientsConcurrent(t *testing.T) {
	var c clients
	long := time.Now().Add(-2 * concurrencyWindow)
	c.saw(100, long)
	c.saw(100, long)
	c.saw(0, time.Now())
	if c.concurrent() {
		t.Fatal("one client thread (and the kernel) seen as concurrent")
	}
	c.reads.Add(1)
	if !c.concurrent() {
		t.Fatal("a READ in progress not seen as concurrent")
	}
	c.reads.Add(-1)
	c.saw(101, time.Now())
	if !c.concurrent() {
		t.Fatal("a second client thread not seen as concurrent")
	}
	c.saw(101, long) // the same thread again changes nothing
	if !c.concurrent() {
		t.Fatal("a repeated thread ended the window")
	}
	c.saw(100, long)
	if c.concurrent() {
		t.Fatal("still concurrent after the window passed")
	}
}
