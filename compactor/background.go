package compactor

import (
	"context"
	"sync"
)

// Background is a Compactor running on the real clock in a goroutine of
// its own (Run) until Stop: what a mount starts beside the file system it
// compacts, which knows nothing of it. Its mutex is a leaf: never held
// while calling the compactor or waiting for the goroutine.
type Background struct {
	c      *Compactor
	cancel context.CancelFunc
	done   chan struct{}

	mu  sync.Mutex
	err error // what Run stopped with
}

// StartBackground starts a compactor of t in the background; logf (may be
// nil) hears why it stopped, if it stops by itself.
func StartBackground(t Target, cfg Config, logf func(string, ...any)) (*Background, error) {
	c, err := New(t, cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Background{c: c, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		if err := c.Run(ctx); err != nil {
			if logf != nil {
				logf("vlfs: compactor stopped: %v", err)
			}
			b.mu.Lock()
			b.err = err
			b.mu.Unlock()
		}
	}()
	return b, nil
}

// Stop stops the compactor, waiting for the step in flight, and returns
// what it had stopped with, if anything. Stop before the target closes;
// a second Stop returns the same. Stats stay readable.
func (b *Background) Stop() error {
	b.cancel()
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Stats are the compactor's counters (safe from any goroutine).
func (b *Background) Stats() Stats { return b.c.Stats() }
