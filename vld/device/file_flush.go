package device

import "sync"

// flusher lets concurrent Flush calls share fdatasyncs without weakening what
// each caller is promised: every write that returned before its Flush began is
// durable when Flush returns.
//
// Why sharing is safe only with the next sync: a write that returned is in the
// page cache (or, with O_DIRECT, handed to the device) before the caller
// enters Flush, so any fdatasync that *starts* after the caller entered covers
// it. A sync already running when the caller arrives may have started before
// the write returned, so the caller must not count it.
//
// So syncs run one at a time and are numbered 1, 2, ...: started is the number
// of the last sync begun, done of the last finished. A caller needs sync
// started+1, the next one to begin, which necessarily begins after it arrived.
// It waits until done reaches that number, starting the sync itself when none
// is running. However many callers pile up, at most two syncs serve them: the
// one in flight when they arrived and the next, which they all share.
//
// A failed fdatasync is sticky. After a writeback error Linux may report
// success for later syncs even though the failed pages were dropped, so once
// one fails every Flush that depended on it or came later returns that error.
type flusher struct {
	sync func() error

	mu        sync.Mutex
	cond      sync.Cond // signalled when a sync finishes; L is &mu
	started   uint64
	done      uint64
	running   bool
	err       error  // first sync error, sticky
	failedGen uint64 // the number of the sync that failed
}

func (fl *flusher) init(sync func() error) {
	fl.sync = sync
	fl.cond.L = &fl.mu
}

// flush returns once a sync that started after the call began has finished.
func (fl *flusher) flush() error {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	need := fl.started + 1
	for fl.done < need && fl.err == nil {
		if fl.running {
			fl.cond.Wait()
			continue
		}
		fl.runLocked()
	}
	// A failure in a later sync than ours does not undo ours.
	if fl.err != nil && fl.failedGen <= need {
		return fl.err
	}
	return nil
}

// runLocked runs one sync with fl.mu released during it; fl.mu must be held.
func (fl *flusher) runLocked() {
	fl.running = true
	fl.started++
	gen := fl.started
	fl.mu.Unlock()
	err := fl.sync()
	fl.mu.Lock()
	fl.running = false
	fl.done = gen
	if err != nil && fl.err == nil {
		fl.err, fl.failedGen = err, gen
	}
	fl.cond.Broadcast()
}

// count is the number of syncs started.
func (fl *flusher) count() uint64 {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	return fl.started
}
