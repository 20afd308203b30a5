package fusefs

import (
	"sync"
	"testing"
)

// TestPoolGrowsWhenAllBusy drives the pool's bookkeeping the way readers
// do: a reader that takes the last idle slot starts another, up to max, and
// readers beyond min leave once enough are idle.
func TestPoolGrowsWhenAllBusy(t *testing.T) {
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
	if idle, total := p.size(); idle != 2 || total != 2 {
		t.Fatalf("after start: idle %d total %d", idle, total)
	}
	p.busy() // one of two busy: no growth
	if _, total := p.size(); total != 2 {
		t.Fatalf("grew with an idle reader left: total %d", total)
	}
	p.busy() // last idle taken: grow
	p.busy() // the new one taken too: grow again
	p.busy() // at max: no growth
	idle, total := p.size()
	if total != 4 || idle != 0 {
		t.Fatalf("all busy: idle %d total %d, want 0 and 4", idle, total)
	}
	// Answering: the first two go back to idle, the others leave.
	want := []bool{true, true, false, false}
	for i, w := range want {
		if got := p.idleAgain(); got != w {
			t.Fatalf("reader %d idleAgain = %v, want %v", i, got, w)
		}
	}
	if idle, total := p.size(); idle != 2 || total != 2 {
		t.Fatalf("after answering: idle %d total %d", idle, total)
	}
	p.exit()
	p.exit()
	close(release)
	p.wait()
	if started != 4 {
		t.Fatalf("started %d goroutines, want 4", started)
	}
}
