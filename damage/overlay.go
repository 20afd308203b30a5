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
	return o.blocks("read", p, off, func(b, in int64, q []byte) error {
		if m := o.mod[b]; m != nil {
			copy(q, m[in:])
			return nil
		}
		_, err := o.base.ReadAt(q, b*o.bs+in)
		return err
	})
}

// WriteAt implements device.Device.
func (o *overlay) WriteAt(p []byte, off int64) (int, error) {
	return o.blocks("write", p, off, func(b, in int64, q []byte) error {
		m := o.mod[b]
		if m == nil {
			m = make([]byte, o.bs)
			if int64(len(q)) < o.bs { // the rest of the block is the base's
				if _, err := o.base.ReadAt(m, b*o.bs); err != nil {
					return err
				}
			}
			o.mod[b] = m
		}
		copy(m[in:], q)
		return nil
	})
}

// blocks checks p at off against the device's size and calls fn, with the
// overlay locked, for each block p covers: block number, offset in it,
// and the part of p that falls in it.
func (o *overlay) blocks(what string, p []byte, off int64, fn func(b, in int64, q []byte) error) (int, error) {
	if off < 0 || off+int64(len(p)) > o.base.Size() {
		return 0, fmt.Errorf("overlay: %s %d bytes at %d: %w", what, len(p), off, device.ErrOutOfRange)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for done := 0; done < len(p); {
		at := off + int64(done)
		b, in := at/o.bs, at%o.bs
		n := int(min(int64(len(p)-done), o.bs-in))
		if err := fn(b, in, p[done:done+n]); err != nil {
			return done, err
		}
		done += n
	}
	return len(p), nil
}

// Flush implements device.Device: nothing to make durable.
func (o *overlay) Flush() error { return nil }

// Size implements device.Device.
func (o *overlay) Size() int64 { return o.base.Size() }

// Close implements device.Device; the base stays open.
func (o *overlay) Close() error { return nil }
