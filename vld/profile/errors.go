package profile

import "errors"

// Sentinel errors. Callers test them with errors.Is; the wrapping message
// says what was at fault and where.
var (
	// ErrCorrupt: a profile file failed to decode or to validate.
	ErrCorrupt = errors.New("profile: invalid profile")
	// ErrInvalid: a bad measurement setting (grid, block size, region).
	ErrInvalid = errors.New("profile: invalid argument")
	// ErrUnsafe: the target holds data the measurement would destroy.
	ErrUnsafe = errors.New("profile: refusing to write over data")
	// ErrOutside: a write would have fallen outside the region.
	ErrOutside = errors.New("profile: write outside the region")
)
