package rangedisk

import "errors"

// Sentinel errors. Callers test them with errors.Is; the wrapping message
// says which range, field or request was at fault.
var (
	// ErrBadRange: an empty, inverted or out-of-disk range, a malformed
	// bitmap, or a descriptor that is neither a list nor a bitmap.
	ErrBadRange = errors.New("rangedisk: bad range")
	// ErrBadAlign: an alignment that is not a power-of-two number of blocks.
	ErrBadAlign = errors.New("rangedisk: alignment is not a power of two")
	// ErrTooLarge: the write fits in no range of its descriptor (with its
	// alignment), or an exact request runs past the disk.
	ErrTooLarge = errors.New("rangedisk: write larger than every range")
	// ErrBadRequest: a request with an unknown kind, no blocks, or data of
	// the wrong length or block size.
	ErrBadRequest = errors.New("rangedisk: bad request")
	// ErrQueueFull: Q requests are already outstanding.
	ErrQueueFull = errors.New("rangedisk: queue full")
	// ErrNoTarget: every target of a range write was taken by other
	// outstanding range writes before it could be placed. The write is
	// completed with this error and nothing is written.
	ErrNoTarget = errors.New("rangedisk: no free target left in the ranges")
)
