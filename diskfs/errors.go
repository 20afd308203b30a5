package diskfs

import "errors"

// Sentinel errors. Callers test with errors.Is; messages carry context.
var (
	// ErrOutOfRange rejects a write or size change beyond the exported
	// size; it is answered as EFBIG.
	ErrOutOfRange = errors.New("diskfs: beyond the end of the disk")
	// ErrBusy means the disk file is still in use; the message names the
	// users and how to release them.
	ErrBusy = errors.New("diskfs: disk is in use")
	// ErrNotMounted means the directory is not a mount point.
	ErrNotMounted = errors.New("diskfs: not mounted")
)
