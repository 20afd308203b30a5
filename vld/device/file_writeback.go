package device

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Early writeback (FileOptions.WritebackBytes). Flush is an fdatasync,
// which writes every page of the image written since the one before: under
// a stream of large writes the next commit's flush waited for all of them
// (the mix of issue 31: a commit's device flush 0.6 ms on average, over 10
// ms at p99, and every fsync behind it). Once WritebackBytes have been
// written since the last kick, a goroutine of the file's asks the kernel to
// start writing the dirty pages back (sync_file_range with
// SYNC_FILE_RANGE_WRITE only, as RocksDB's bytes_per_sync does): the host
// writes while vlfs goes on, and the fdatasync finds less to do. It waits
// for nothing and reports nothing: durability still rests on Flush alone,
// and a writeback error stays for the next fdatasync to report (the
// kernel's error sequence is only sampled by syncs that wait).
type writeback struct {
	every   int64
	written atomic.Int64
	kicks   atomic.Int64 // sync_file_range calls made
	kick    chan struct{}
	done    chan struct{}
}

// startWriteback starts early writeback of fd every `every` bytes; nil
// (none) when every is 0.
func startWriteback(fd int, every int64) *writeback {
	if every <= 0 {
		return nil
	}
	w := &writeback{every: every, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run(fd)
	return w
}

// wrote counts n bytes written; the caller holds File.mu read-held, so
// stop (under the write lock) cannot run meanwhile.
func (w *writeback) wrote(n int) {
	if w == nil || w.written.Add(int64(n)) < w.every {
		return
	}
	w.written.Store(0)
	select {
	case w.kick <- struct{}{}:
	default: // one is pending already
	}
}

func (w *writeback) run(fd int) {
	defer close(w.done)
	for range w.kick {
		for unix.SyncFileRange(fd, 0, 0, unix.SYNC_FILE_RANGE_WRITE) == unix.EINTR {
		}
		w.kicks.Add(1)
	}
}

// stop ends the goroutine before the descriptor is closed; File.mu must
// be write-held, so no write can kick meanwhile.
func (w *writeback) stop() {
	if w == nil {
		return
	}
	close(w.kick)
	<-w.done
}

// Kicks is the number of early writebacks started (0 without
// FileOptions.WritebackBytes).
func (d *File) Kicks() int64 {
	if d.wb == nil {
		return 0
	}
	return d.wb.kicks.Load()
}
