package device

import "fmt"

// FileOptions say how OpenFile opens an image file or block device.
type FileOptions struct {
	Create   bool  // create the file if missing (mode 0600)
	Size     int64 // with Create: set the size (truncate or extend); 0 keeps the current size
	ReadOnly bool  // open for reading; writes fail with ErrReadOnly, the lock is shared
	Direct   bool  // O_DIRECT; fails with ErrNoDirect where the file system refuses it
	NoLock   bool  // skip the flock
	// WritebackBytes: start the kernel's writeback of the file's dirty
	// pages after every so many bytes written (file_writeback.go); 0 never
	// does (the kernel's own timers decide). Ignored with Direct or
	// ReadOnly, which leave no dirty pages.
	WritebackBytes int64
}

// DefaultWritebackBytes is what mounts ask for: a few commits' worth of a
// streaming writer, so that a flush finds at most about this much to write.
const DefaultWritebackBytes = 8 << 20

// validate rejects combinations that cannot mean anything sensible.
func (o FileOptions) validate() error {
	switch {
	case o.WritebackBytes < 0:
		return fmt.Errorf("negative writeback interval %d: %w", o.WritebackBytes, ErrBadOptions)
	case o.Size < 0:
		return fmt.Errorf("negative size %d: %w", o.Size, ErrBadOptions)
	case o.Size != 0 && !o.Create:
		return fmt.Errorf("size %d without Create: %w", o.Size, ErrBadOptions)
	case o.Create && o.ReadOnly:
		return fmt.Errorf("Create with ReadOnly: %w", ErrBadOptions)
	case o.Direct && o.Size%DirectAlign != 0:
		return fmt.Errorf("direct I/O needs a size that is a multiple of %d, got %d: %w", DirectAlign, o.Size, ErrBadOptions)
	}
	return nil
}
