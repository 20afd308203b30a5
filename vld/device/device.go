package device

import (
	"errors"
	"fmt"
)

// Device is a block-addressable backing store. Offsets and lengths are bytes.
// Implementations are safe for concurrent use.
type Device interface {
	// ReadAt reads len(p) bytes at off. A read that extends past Size reads
	// what exists and returns an error wrapping ErrOutOfRange.
	ReadAt(p []byte, off int64) (int, error)
	// WriteAt writes p at off. A write that does not fit in [0, Size) writes
	// nothing and returns an error wrapping ErrOutOfRange.
	WriteAt(p []byte, off int64) (int, error)
	// Flush makes everything written before the call durable.
	Flush() error
	// Size is the device's fixed size in bytes.
	Size() int64
	// Close releases the device; later calls fail with ErrClosed.
	Close() error
}

// Compile-time checks that every implementation is a Device.
var (
	_ Device = (*File)(nil)
	_ Device = (*Mem)(nil)
	_ Device = (*Crash)(nil)
	_ Device = (*Faulty)(nil)
)

// Sentinel errors. Every error returned by this package that has one of these
// causes wraps it, so test with errors.Is.
var (
	ErrOutOfRange = errors.New("device: access out of range")
	ErrLocked     = errors.New("device: locked by another holder")
	ErrNoLock     = errors.New("device: the image behind it cannot be locked")
	ErrClosed     = errors.New("device: closed")
	ErrInjected   = errors.New("device: injected fault")
	ErrReadOnly   = errors.New("device: opened read-only")
	ErrBadOptions = errors.New("device: invalid options")
	ErrNoDirect   = errors.New("device: O_DIRECT refused by the file system")
	ErrBadState   = errors.New("device: invalid crash state")
)

// checkRange reports whether [off, off+n) lies inside [0, size), as an error
// wrapping ErrOutOfRange. It is written so that off+n cannot overflow.
func checkRange(op string, off int64, n int, size int64) error {
	if off < 0 || off > size || int64(n) > size-off {
		return fmt.Errorf("%s [%d, +%d) on a device of %d bytes: %w", op, off, n, size, ErrOutOfRange)
	}
	return nil
}

// readable is how many bytes of a len-n read at off exist on a device of
// size bytes (0 when off is outside the device).
func readable(off int64, n int, size int64) int {
	if off < 0 || off >= size {
		return 0
	}
	return int(min(int64(n), size-off))
}
