package damage

import (
	"fmt"
	"sync"

	"github.com/vlfs/vlfs/vld/device"
)

// overlay is a copy-on-write device over a read-only base: writes land
// in memory, block by block, and reads see them over the base. Close
// leaves the base open (the matrix reuses it).
type overlay struct {
	base device.Device
	bs   int64
	mu   sync.Mutex
	mod  map[int64][]byte // block number -> contents
}

var _ device.Device = (*overlay)(nil)

func newOverlay(base device.Device, bs int) *overlay {
	return &overlay{base: base, bs: int64(bs), mod: map[int64][]byte{}}
}

// ReadAt implements device.Device.
func (o *overlay) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > o.base.Size() {
		return 0, fmt.Errorf("overlay: read %d bytes at %d: %w", len(p), off, device.ErrOutOfRange)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for done := 0; done < len(p); {
		at := off + int64(done)
		b, in := at/o.bs, at%o.bs
		n := min(int64(len(p)-done), o.bs-in)
		if m := o.mod[b]; m != nil {
			copy(p[done:done+int(n)], m[in:in+n])
		} else if _, err := o.base.ReadAt(p[done:done+int(n)], at); err != nil {
			return done, err
		}
		done += int(n)
	}
	return len(p), nil
}

// WriteAt implements device.Device.
func (o *overlay) WriteAt(p []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(p)) > o.base.Size() {
		return 0, fmt.Errorf("overlay: write %d bytes at %d: %w", len(p), off, device.ErrOutOfRange)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for done := 0; done < len(p); {
		at := off + int64(done)
		b, in := at/o.bs, at%o.bs
		n := min(int64(len(p)-done), o.bs-in)
		m := o.mod[b]
		if m == nil {
			m = make([]byte, o.bs)
			if n < o.bs {
				if _, err := o.base.ReadAt(m, b*o.bs); err != nil {
					return done, err
				}
			}
			o.mod[b] = m
		}
		copy(m[in:in+n], p[done:done+int(n)])
		done += int(n)
	}
	return len(p), nil
}

// Flush implements device.Device: nothing to make durable.
func (o *overlay) Flush() error { return nil }

// Size implements device.Device.
func (o *overlay) Size() int64 { return o.base.Size() }

// Close implements device.Device; the base stays open.
func (o *overlay) Close() error { return nil }
