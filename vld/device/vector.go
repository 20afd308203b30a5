package device

import (
	"fmt"
	"io"
	"slices"

	"golang.org/x/sys/unix"
)

// VectorWriter is a Device that can write several buffers that lie back to
// back on it as one request (pwritev on a file). Each buffer is one of the
// caller's writes: a device that records writes (Crash) records each buffer
// as its own write, so crash states can still drop or keep each of them.
type VectorWriter interface {
	// WriteVecAt writes bufs one after another from off. The whole range
	// must fit in [0, Size), else nothing is written and the error wraps
	// ErrOutOfRange. It returns the bytes written.
	WriteVecAt(bufs [][]byte, off int64) (int, error)
}

// Every implementation but Faulty writes vectors natively. Faulty does not,
// on purpose: WriteVec then issues one WriteAt per buffer, so its faults
// keep counting the caller's writes one by one.
var (
	_ VectorWriter = (*File)(nil)
	_ VectorWriter = (*Mem)(nil)
	_ VectorWriter = (*Crash)(nil)
)

// WriteVec writes bufs back to back from off: as one request when d is a
// VectorWriter, else as one WriteAt per buffer, in order, stopping at the
// first error.
func WriteVec(d Device, bufs [][]byte, off int64) (int, error) {
	if vw, ok := d.(VectorWriter); ok {
		return vw.WriteVecAt(bufs, off)
	}
	total := 0
	for _, b := range bufs {
		n, err := d.WriteAt(b, off+int64(total))
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// vecLen is the total length of bufs.
func vecLen(bufs [][]byte) int {
	n := 0
	for _, b := range bufs {
		n += len(b)
	}
	return n
}

// WriteVecAt implements VectorWriter under one lock.
func (m *Mem) WriteVecAt(bufs [][]byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, fmt.Errorf("mem write at %d: %w", off, ErrClosed)
	}
	if err := checkRange("mem write", off, vecLen(bufs), int64(len(m.buf))); err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bufs {
		n += copy(m.buf[off+int64(n):], b)
	}
	return n, nil
}

// WriteVecAt implements VectorWriter: the base gets one request, the record
// one write per buffer, in order, each as WriteAt would record it.
func (c *Crash) WriteVecAt(bufs [][]byte, off int64) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed.Load() {
		return 0, fmt.Errorf("crash write at %d: %w", off, ErrClosed)
	}
	n, err := WriteVec(c.base, bufs, off)
	at := 0
	for _, b := range bufs {
		k := min(len(b), n-at)
		if k <= 0 {
			break
		}
		c.recordLocked(Op{Kind: OpWrite, Off: off + int64(at), Data: slices.Clone(b[:k])})
		c.recorded += int64(k)
		at += k
	}
	return n, err
}

// WriteVecAt implements VectorWriter with one pwritev (O_DIRECT: one write
// of the buffers copied together, which the aligned path needs anyway).
func (d *File) WriteVecAt(bufs [][]byte, off int64) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	switch {
	case d.f == nil:
		return 0, fmt.Errorf("write %s at %d: %w", d.path, off, ErrClosed)
	case d.readOnly:
		return 0, fmt.Errorf("write %s at %d: %w", d.path, off, ErrReadOnly)
	}
	if err := checkRange("write", off, vecLen(bufs), d.size); err != nil {
		return 0, fmt.Errorf("%s: %w", d.path, err)
	}
	var n int
	var err error
	switch {
	case len(bufs) == 1:
		n, err = d.pwriteLocked(bufs[0], off)
	case d.direct:
		n, err = d.pwriteLocked(slices.Concat(bufs...), off)
	default:
		n, err = d.pwritevLocked(bufs, off)
	}
	d.wb.wrote(n)
	if err != nil {
		return n, fmt.Errorf("write %s at %d: %w", d.path, off, err)
	}
	return n, nil
}

// pwritevLocked writes bufs back to back at off with pwritev. d.mu must
// be read-held.
func (d *File) pwritevLocked(bufs [][]byte, off int64) (int, error) {
	return d.vecLocked(unix.Pwritev, bufs, off, io.ErrShortWrite)
}
