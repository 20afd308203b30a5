package device

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// File is a Device over a regular image file or a block device. Reads and
// writes are pread/pwrite; Flush is fdatasync, shared among concurrent
// callers (see flusher). Unless opened with NoLock it holds a flock on the
// file until Close.
type File struct {
	path     string
	size     int64
	readOnly bool
	direct   bool

	mu    sync.RWMutex // read-held by ReadAt, WriteAt and Flush; write-held by Close
	f     *os.File     // nil once closed
	rmwMu sync.RWMutex // O_DIRECT writes: shared by aligned ones, exclusive for read-modify-write
	fl    flusher
	wb    *writeback // early writeback (file_writeback.go); nil when off
	locks []*os.File // descriptors holding the locks of what lies behind f (file_lock.go)
}

// Path is the path the file was opened with.
func (d *File) Path() string { return d.path }

// Size implements Device. It is fixed at open.
func (d *File) Size() int64 { return d.size }

// Direct reports whether the file was opened with O_DIRECT.
func (d *File) Direct() bool { return d.direct }

// Syncs is the number of fdatasyncs issued so far; it is at most the number
// of Flush calls, and smaller when concurrent callers shared one.
func (d *File) Syncs() uint64 { return d.fl.count() }

// ReadAt implements Device.
func (d *File) ReadAt(p []byte, off int64) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.f == nil {
		return 0, fmt.Errorf("read %s at %d: %w", d.path, off, ErrClosed)
	}
	n := readable(off, len(p), d.size)
	if n > 0 {
		got, err := d.preadLocked(p[:n], off)
		if err != nil {
			return got, fmt.Errorf("read %s at %d: %w", d.path, off, err)
		}
	}
	if n < len(p) {
		return n, fmt.Errorf("%s: %w", d.path, checkRange("read", off, len(p), d.size))
	}
	return n, nil
}

// WriteAt implements Device.
func (d *File) WriteAt(p []byte, off int64) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	switch {
	case d.f == nil:
		return 0, fmt.Errorf("write %s at %d: %w", d.path, off, ErrClosed)
	case d.readOnly:
		return 0, fmt.Errorf("write %s at %d: %w", d.path, off, ErrReadOnly)
	}
	if err := checkRange("write", off, len(p), d.size); err != nil {
		return 0, fmt.Errorf("%s: %w", d.path, err)
	}
	n, err := d.pwriteLocked(p, off)
	d.wb.wrote(n)
	if err != nil {
		return n, fmt.Errorf("write %s at %d: %w", d.path, off, err)
	}
	return n, nil
}

// Flush implements Device with fdatasync. On a read-only file it does
// nothing: there is nothing of ours to make durable.
func (d *File) Flush() error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	switch {
	case d.f == nil:
		return fmt.Errorf("flush %s: %w", d.path, ErrClosed)
	case d.readOnly:
		return nil
	}
	if err := d.fl.flush(); err != nil {
		return fmt.Errorf("flush %s: %w", d.path, err)
	}
	return nil
}

// Close implements Device. It waits for calls in flight, then closes the
// descriptor, which releases the flock.
func (d *File) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.f == nil {
		return fmt.Errorf("close %s: %w", d.path, ErrClosed)
	}
	d.wb.stop() // before the descriptor it uses goes
	err := d.f.Close()
	d.f = nil
	closeAll(d.locks) // after f: the image is unlocked only once it is closed
	d.locks = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", d.path, err)
	}
	return nil
}

// preadLocked reads exactly len(p) bytes at off, which the caller has checked
// lie inside the device. d.mu must be read-held.
func (d *File) preadLocked(p []byte, off int64) (int, error) {
	if d.direct {
		return d.directReadLocked(p, off)
	}
	return d.f.ReadAt(p, off)
}

// pwriteLocked writes p at off. d.mu must be read-held.
func (d *File) pwriteLocked(p []byte, off int64) (int, error) {
	if d.direct {
		return d.directWriteLocked(p, off)
	}
	return d.f.WriteAt(p, off)
}

// fdatasync is the flusher's sync for an open file. It runs with d.mu
// read-held by the Flush that started it, so the descriptor stays valid.
func fdatasync(f *os.File) func() error {
	return func() error {
		for {
			err := unix.Fdatasync(int(f.Fd()))
			if err != unix.EINTR {
				return err
			}
		}
	}
}
