package disk

import "errors"

// Sentinel errors. Callers test them with errors.Is; the wrapping message
// says which field, preset or parameter was at fault.
var (
	// ErrInvalidModel: a disk model failed to decode or to validate.
	ErrInvalidModel = errors.New("invalid disk model")
	// ErrUnknownPreset: no preset has the requested name.
	ErrUnknownPreset = errors.New("unknown disk preset")
	// ErrBadLayout: a Layout cannot be built for this block size or size.
	ErrBadLayout = errors.New("bad disk layout")
	// ErrBadParameter: an analytical model got an out-of-domain argument.
	ErrBadParameter = errors.New("bad model parameter")
)
