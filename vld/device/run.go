package device

import (
	"fmt"
	"io"
	"slices"

	"golang.org/x/sys/unix"
)

// RunIO is a Device that moves a run of buffers lying back to back as one
// request without joining them into one buffer first (preadv and pwritev
// on a file). Unlike VectorWriter's buffers, a run is one write: only
// devices that record nothing implement RunIO, so a recording device
// (Crash) or a fault-injecting one (Faulty) still sees the run as the
// single joined write it always was.
type RunIO interface {
	// ReadRunAt fills bufs one after another from off. The whole range
	// must lie in [0, Size), else the error wraps ErrOutOfRange.
	ReadRunAt(bufs [][]byte, off int64) (int, error)
	// WriteRunAt writes bufs one after another from off, as WriteVecAt.
	WriteRunAt(bufs [][]byte, off int64) (int, error)
}

var (
	_ RunIO = (*File)(nil)
	_ RunIO = (*Mem)(nil)
)

// ReadRun fills bufs from off: in one request without a copy when d is a
// RunIO, else with one ReadAt into a joined buffer that is then split.
func ReadRun(d Device, bufs [][]byte, off int64) (int, error) {
	if len(bufs) == 1 {
		return d.ReadAt(bufs[0], off)
	}
	if r, ok := d.(RunIO); ok {
		return r.ReadRunAt(bufs, off)
	}
	buf := make([]byte, vecLen(bufs))
	n, err := d.ReadAt(buf, off)
	for i := 0; len(buf) > 0; i++ {
		buf = buf[copy(bufs[i], buf):]
	}
	return n, err
}

// WriteRun writes bufs back to back from off as one write: without a copy
// when d is a RunIO, else joined into one buffer for one WriteAt.
func WriteRun(d Device, bufs [][]byte, off int64) (int, error) {
	if len(bufs) == 1 {
		return d.WriteAt(bufs[0], off)
	}
	if r, ok := d.(RunIO); ok {
		return r.WriteRunAt(bufs, off)
	}
	return d.WriteAt(slices.Concat(bufs...), off)
}

// ReadRunAt implements RunIO under one lock.
func (m *Mem) ReadRunAt(bufs [][]byte, off int64) (int, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, fmt.Errorf("mem read at %d: %w", off, ErrClosed)
	}
	if err := checkRange("mem read", off, vecLen(bufs), int64(len(m.buf))); err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bufs {
		n += copy(b, m.buf[off+int64(n):])
	}
	return n, nil
}

// WriteRunAt implements RunIO: Mem records nothing, so it is WriteVecAt.
func (m *Mem) WriteRunAt(bufs [][]byte, off int64) (int, error) {
	return m.WriteVecAt(bufs, off)
}

// WriteRunAt implements RunIO: File records nothing, so it is WriteVecAt.
func (d *File) WriteRunAt(bufs [][]byte, off int64) (int, error) {
	return d.WriteVecAt(bufs, off)
}

// ReadRunAt implements RunIO with one preadv (O_DIRECT: one aligned read
// into a joined buffer, which the aligned path needs anyway).
func (d *File) ReadRunAt(bufs [][]byte, off int64) (int, error) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.f == nil {
		return 0, fmt.Errorf("read %s at %d: %w", d.path, off, ErrClosed)
	}
	want := vecLen(bufs)
	if err := checkRange("read", off, want, d.size); err != nil {
		return 0, fmt.Errorf("%s: %w", d.path, err)
	}
	if d.direct {
		buf := make([]byte, want)
		n, err := d.preadLocked(buf, off)
		if err != nil {
			return n, fmt.Errorf("read %s at %d: %w", d.path, off, err)
		}
		for i := 0; len(buf) > 0; i++ {
			buf = buf[copy(bufs[i], buf):]
		}
		return n, nil
	}
	n, err := d.preadvLocked(bufs, off)
	if err != nil {
		return n, fmt.Errorf("read %s at %d: %w", d.path, off, err)
	}
	return n, nil
}

// preadvLocked fills bufs from off with preadv; a read that ends early
// (the file shrank under us) is io.ErrUnexpectedEOF. d.mu must be
// read-held.
func (d *File) preadvLocked(bufs [][]byte, off int64) (int, error) {
	return d.vecLocked(unix.Preadv, bufs, off, io.ErrUnexpectedEOF)
}

// vecLocked runs op (preadv or pwritev) over bufs from off until all of
// them are done, resuming after EINTR or a short transfer; a call that
// moves nothing ends it with short. d.mu must be read-held.
func (d *File) vecLocked(op func(int, [][]byte, int64) (int, error), bufs [][]byte, off int64, short error) (int, error) {
	want, total := vecLen(bufs), 0
	for {
		n, err := op(int(d.f.Fd()), bufs, off+int64(total))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		total += n
		if total >= want {
			return total, nil
		}
		if n == 0 {
			return total, short
		}
		bufs = skipVec(bufs, n)
	}
}

// skipVec is bufs without its first n bytes, on a new slice so that the
// caller's vector stays as it was.
func skipVec(bufs [][]byte, n int) [][]byte {
	rest := make([][]byte, 0, len(bufs))
	for _, b := range bufs {
		k := min(n, len(b))
		n -= k
		if k < len(b) {
			rest = append(rest, b[k:])
		}
	}
	return rest
}
