package fusefs

import "sync"

// pool keeps readers waiting on the kernel, as many as the clients need.
// The kernel hands each request to the reader that has waited longest, and
// on a virtual machine waking a thread that has slept a while (its vCPU
// halted) costs tens of microseconds, while the reader that has just
// answered is still running. So the pool runs in one of two regimes, chosen
// request by request by the server's clients tracker:
//
//   - Solo (every request comes from one client thread, which waits for each
//     answer before it can send another): one reader waits, and the one that
//     takes a request answers it and reads again, so a writer's WRITE and
//     FSYNC reach the same thread (docs/fuse.md, "Readers").
//   - Concurrent: min readers wait (Options.Readers), and the reader that
//     takes the last waiting slot starts another, up to max, so that while
//     handlers wait (on the image, on a commit) requests that arrive
//     meanwhile are read at once, and fsyncs that arrive during a commit
//     share the next one.
//
// A reader that finishes while enough others wait (one, or min) exits. A
// handler that waits while no reader does only delays the requests behind
// it: nothing a handler waits for depends on another FUSE request being
// answered, so neither that nor a full pool can deadlock.
type pool struct {
	mu          sync.Mutex
	idle, total int
	min, max    int
	ended       bool // the connection is gone; start no more readers
	run         func()
	wg          sync.WaitGroup
}

// start starts one reader; min is the number kept waiting while requests
// overlap, max the most there may be.
func (p *pool) start(min, max int, run func()) {
	p.min, p.max, p.run = min, max, run
	p.mu.Lock()
	defer p.mu.Unlock()
	p.spawnLocked()
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

// busy is called by a reader that has just read a request; concurrent
// says whether others may arrive before it is answered.
func (p *pool) busy(concurrent bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle--
	if concurrent && p.idle == 0 && p.total < p.max && !p.ended {
		p.spawnLocked()
	}
}

// idleAgain is called by a reader that has answered its request; false means
// the reader should exit because enough others are waiting.
func (p *pool) idleAgain(concurrent bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	keep := 1
	if concurrent {
		keep = p.min
	}
	if p.idle >= keep || p.ended {
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
