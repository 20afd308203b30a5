package diskfs

import (
	"fmt"
	"io"
	"sync"
)

// Mem is a Disk in memory with no simulated mechanics: what the FUSE layer
// alone costs (the benchmark's middle layer), and a backend for testing the
// server without a volume underneath.
type Mem struct {
	mu   sync.Mutex
	b    []byte
	st   Stats
	size int64
}

var _ Disk = (*Mem)(nil)

// NewMem returns a zeroed disk of size bytes.
func NewMem(size int64) *Mem {
	return &Mem{b: make([]byte, size), size: size, st: Stats{Backend: "memory", Clock: "none", SizeBytes: size, BlockBytes: 4096}}
}

// Size is the size given to NewMem.
func (m *Mem) Size() int64 { return m.size }

// ReadAt copies out of memory.
func (m *Mem) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read at %d: %w", off, ErrOutOfRange)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if off >= m.size {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	m.st.Reads++
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// WriteAt copies into memory, all or nothing.
func (m *Mem) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off > m.size || int64(len(p)) > m.size-off {
		return 0, fmt.Errorf("bytes [%d, %d) of a %d-byte disk: %w", off, off+int64(len(p)), m.size, ErrOutOfRange)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.Writes++
	return copy(m.b[off:], p), nil
}

// Discard zeroes the range.
func (m *Mem) Discard(off, n int64) error {
	if off < 0 || n < 0 {
		return fmt.Errorf("discard [%d, +%d): %w", off, n, ErrOutOfRange)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.Discards++
	if off < m.size {
		clear(m.b[off : off+min(n, m.size-off)])
	}
	return nil
}

// Sync only counts: memory is as durable as it gets.
func (m *Mem) Sync() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.st.Syncs++
	return nil
}

// Stats reports the request counts.
func (m *Mem) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}
