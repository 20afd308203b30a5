package fusefs

import "sync"

// pool keeps readers waiting on the kernel: as few as will do, since the
// kernel hands each request to the reader that has waited longest, and on a
// virtual machine waking a thread that has slept a while (its vCPU halted)
// costs tens of microseconds, while the reader that has just answered is
// still running. So min readers wait (default 1), and the one that takes a
// request answers it itself and then reads again: a writer's WRITE and FSYNC
// reach the same thread (docs/fuse.md, "Readers").
//
// A handler that may wait (a request to the image, another fsync's commit)
// calls willWait first, which starts another reader if none is waiting, up
// to max: requests that arrive meanwhile are still read, and fsyncs that
// arrive during a commit share the next one. A reader that finishes while
// min others are waiting exits. A handler that waits without calling
// willWait only delays the requests behind it: nothing a handler waits for
// depends on another FUSE request being answered, so neither that nor a
// full pool can deadlock.
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

// busy is called by a reader that has just read a request. It starts no
// other reader: most requests are answered without waiting, and the next
// request is best read by this reader again (see pool).
func (p *pool) busy() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle--
}

// willWait is called before a handler may wait: it starts another reader
// if none is waiting on the kernel and the pool is below max.
func (p *pool) willWait() {
	p.mu.Lock()
	defer p.mu.Unlock()
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
