package fusefs

import "sync"

// pool keeps readers waiting on the kernel. Every reader handles the request
// it read to the end; when the last idle reader takes a request, another is
// started (up to max), and a reader that finishes while min others are
// already idle exits. So requests that block (fsync waiting for a group
// commit) never leave the kernel without a reader while fewer than max are
// busy. Nothing a handler waits for depends on another FUSE request being
// answered, so a full pool delays requests but cannot deadlock.
type pool struct {
	mu          sync.Mutex
	idle, total int
	min, max    int
	ended       bool // the connection is gone; start no more readers
	run         func()
	wg          sync.WaitGroup
}

func (p *pool) start(min, max int, run func()) {
	p.min, p.max, p.run = min, max, run
	p.mu.Lock()
	defer p.mu.Unlock()
	for range min {
		p.spawnLocked()
	}
}

// spawnLocked starts one more idle reader.
func (p *pool) spawnLocked() {
	p.idle++
	p.total++
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.run()
	}()
}

// busy is called by a reader that has just read a request.
func (p *pool) busy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle--
	if p.idle == 0 && p.total < p.max && !p.ended {
		p.spawnLocked()
	}
}

// idleAgain is called by a reader that has answered its request; false means
// the reader should exit because enough others are waiting.
func (p *pool) idleAgain() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle >= p.min || p.ended {
		p.total--
		return false
	}
	p.idle++
	return true
}

// exit is called by an idle reader leaving because the connection ended.
func (p *pool) exit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended = true
	p.idle--
	p.total--
}

// size returns the current number of readers, busy and idle.
func (p *pool) size() (idle, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.idle, p.total
}

func (p *pool) wait() { p.wg.Wait() }
