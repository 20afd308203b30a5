package vlfs

import (
	"context"
	"fmt"
	"sync"

	"github.com/vlfs/vlfs/compactor"
)

// compactRun is the background compactor of a mount. Its mutex is a leaf:
// never held while taking another lock or waiting for the worker.
type compactRun struct {
	mu     sync.Mutex
	c      *compactor.Compactor
	cancel context.CancelFunc
	done   chan struct{}
	err    error // what the worker stopped with
}

// StartCompactor starts the idle-time compactor in the background: on the
// real clock, it works one step at a time whenever no file-system
// operation has arrived for cfg.IdleDelayMs (compactor.Run). Close stops
// it. It refuses a read-only file system, a volume whose placement is not
// eager (ErrNotSupported) and a second start.
func (fs *FS) StartCompactor(cfg compactor.Config) error {
	fs.lock()
	err := fs.compactableLocked()
	fs.unlock()
	if err != nil {
		return err
	}
	c, err := compactor.New(fs.CompactTarget(), cfg)
	if err != nil {
		return err
	}
	r := &fs.cm.run
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c != nil {
		return fmt.Errorf("compactor already running: %w", ErrInvalid)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.c, r.cancel, r.done, r.err = c, cancel, make(chan struct{}), nil
	go func() {
		defer close(r.done)
		if err := c.Run(ctx); err != nil {
			fs.logf("vlfs: compactor stopped: %v", err)
			r.mu.Lock()
			r.err = err
			r.mu.Unlock()
		}
	}()
	return nil
}

// StopCompactor stops the background compactor, waiting for the step in
// flight, and returns what it had stopped with, if anything. The counters
// stay readable.
func (fs *FS) StopCompactor() error {
	r := &fs.cm.run
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	r.cancel = nil
	r.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// compactorStats are the background compactor's counters, nil if it was
// never started.
func (fs *FS) compactorStats() *compactor.Stats {
	r := &fs.cm.run
	r.mu.Lock()
	c := r.c
	r.mu.Unlock()
	if c == nil {
		return nil
	}
	s := c.Stats()
	return &s
}

// Logf writes to the file system's log (Options.Logf), if it has one: for
// the mount command's notes about the compactor.
func (fs *FS) Logf(format string, args ...any) { fs.logf(format, args...) }
