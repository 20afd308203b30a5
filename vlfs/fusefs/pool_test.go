package fusefs

import (
	"sync"
	"testing"
)

// TestPoolSolo drives the pool the way a single client thread does: one
// reader waits, taking a request starts no other, and the reader that
// answers goes back to waiting.
func TestPoolSolo(t *testing.T) {
	var p pool
	release := make(chan struct{})
	p.start(4, 8, func() { <-release })
	for i := range 3 {
		if idle, total := p.size(); idle != 1 || total != 1 {
			t.Fatalf("round %d: idle %d total %d, want 1 and 1", i, idle, total)
		}
		p.busy(false)
		if idle, total := p.size(); idle != 0 || total != 1 {
			t.Fatalf("round %d, busy: idle %d total %d, want 0 and 1", i, idle, total)
		}
		if !p.idleAgain(false) {
			t.Fatalf("round %d: the only reader was told to exit", i)
		}
	}
	p.exit()
	close(release)
	p.wait()
}

// TestPoolConcurrent drives the pool's bookkeeping the way readers and
// handlers do while requests overlap: taking the last waiting slot starts
// one, up to max; readers beyond min leave once enough are idle; and back
// to solo, all but one leave, and taking the last slot starts none.
func TestPoolConcurrent(t *testing.T) {
	var p pool
	started := 0
	var mu sync.Mutex
	release := make(chan struct{})
	p.start(2, 4, func() {
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
		{"the only reader takes a request: grow", func() { p.busy(true) }, 1, 2},
		{"the new one takes a request: grow", func() { p.busy(true) }, 1, 3},
		{"the third takes one: grow to max", func() { p.busy(true) }, 1, 4},
		{"the last takes one: at max", func() { p.busy(true) }, 0, 4},
		{"one answers: back to waiting", func() { p.idleAgain(true) }, 1, 4},
		{"another answers: back to waiting (min 2)", func() { p.idleAgain(true) }, 2, 4},
		{"a third answers: leaves", func() { p.idleAgain(true) }, 2, 3},
		{"solo again: the last busy one leaves", func() { p.idleAgain(false) }, 2, 2},
		{"a waiting one takes a request in solo", func() { p.busy(false) }, 1, 2},
		{"and leaves when done, one still waiting", func() { p.idleAgain(false) }, 1, 1},
		{"the last takes a request, no growth in solo", func() { p.busy(false) }, 0, 1},
		{"overlap again: it answers, takes another, and the pool grows", func() { p.idleAgain(true); p.busy(true) }, 1, 2},
	}
	for _, s := range steps {
		s.do()
		if idle, total := p.size(); idle != s.wantIdle || total != s.wantAll {
			t.Fatalf("%s: idle %d total %d, want %d and %d", s.name, idle, total, s.wantIdle, s.wantAll)
		}
	}
	if p.idleAgain(false) {
		t.Fatal("a reader stayed with another waiting, solo")
	}
	p.exit()
	p.busy(true) // ended: starts nothing
	if _, total := p.size(); total != 0 {
		t.Fatalf("a reader started after the connection ended: total %d", total)
	}
	close(release)
	p.wait()
	if started != 5 {
		t.Fatalf("started %d goroutines, want 5", started)
	}
}
