package device

import (
	"fmt"
	"sync"
)

// Mem is an in-memory Device: a byte slice behind a RWMutex. Flush does
// nothing, since memory is as durable as Mem gets. Bytes still works after
// Close, so a test can inspect a closed device.
type Mem struct {
	mu     sync.RWMutex
	buf    []byte
	closed bool
}

// NewMem returns a zero-filled device of size bytes (a negative size is
// treated as 0).
func NewMem(size int64) *Mem {
	return &Mem{buf: make([]byte, max(size, 0))}
}

// MemFrom returns a device holding a copy of img.
func MemFrom(img []byte) *Mem {
	return &Mem{buf: append([]byte(nil), img...)}
}

// Bytes returns a copy of the current contents.
func (m *Mem) Bytes() []byte {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]byte(nil), m.buf...)
}

// ReadAt implements Device.
func (m *Mem) ReadAt(p []byte, off int64) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, fmt.Errorf("mem read at %d: %w", off, ErrClosed)
	}
	n := readable(off, len(p), int64(len(m.buf)))
	if n > 0 {
		copy(p, m.buf[off:off+int64(n)])
	}
	if n < len(p) {
		return n, checkRange("mem read", off, len(p), int64(len(m.buf)))
	}
	return n, nil
}

// WriteAt implements Device.
func (m *Mem) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, fmt.Errorf("mem write at %d: %w", off, ErrClosed)
	}
	if err := checkRange("mem write", off, len(p), int64(len(m.buf))); err != nil {
		return 0, err
	}
	return copy(m.buf[off:], p), nil
}

// Flush implements Device; it only reports ErrClosed.
func (m *Mem) Flush() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return fmt.Errorf("mem flush: %w", ErrClosed)
	}
	return nil
}

// Size implements Device.
func (m *Mem) Size() int64 {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return int64(len(m.buf))
}

// Close implements Device. Closing twice is an error wrapping ErrClosed.
func (m *Mem) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("mem close: %w", ErrClosed)
	}
	m.closed = true
	return nil
}
