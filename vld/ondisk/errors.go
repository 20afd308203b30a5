package ondisk

import "errors"

// Sentinels returned (wrapped) by every decoder in this package.
var (
	ErrZeroed   = errors.New("ondisk: block is all zeros")
	ErrBadMagic = errors.New("ondisk: wrong magic")
	ErrChecksum = errors.New("ondisk: checksum mismatch")
	ErrVersion  = errors.New("ondisk: unsupported format version")
	ErrCorrupt  = errors.New("ondisk: corrupt record")
	ErrTooSmall = errors.New("ondisk: buffer too small")
)

// IsNotRecord reports whether err means "no valid record of this kind is
// here" (zeroed, other magic, or torn) rather than damage inside a record
// whose checksum matched.
func IsNotRecord(err error) bool {
	return errors.Is(err, ErrZeroed) || errors.Is(err, ErrBadMagic) || errors.Is(err, ErrChecksum)
}
