package vld

import (
	"errors"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Sentinel errors. Callers test with errors.Is; messages carry context.
var (
	// ErrCorrupt marks damage found on disk or in the client's claims.
	ErrCorrupt = errors.New("vld: corrupt volume")
	// ErrNotFormatted means the image holds no valid superblock.
	ErrNotFormatted = errors.New("vld: not a vld volume")
	// ErrNoSpace means no free block is left for this kind of write.
	ErrNoSpace = errors.New("vld: no space left")
	// ErrReadOnly is returned by writes on a read-only volume.
	ErrReadOnly = errors.New("vld: read-only volume")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("vld: volume closed")
	// ErrInvalid rejects bad arguments.
	ErrInvalid = errors.New("vld: invalid argument")
	// ErrPhase is returned by a call made in the wrong phase (MarkLive after
	// Start, WriteBlocks before Start).
	ErrPhase = errors.New("vld: call not allowed in this phase")
)

// MaxAppData is the size limit of FormatOptions.AppData.
const MaxAppData = ondisk.MaxAppData
