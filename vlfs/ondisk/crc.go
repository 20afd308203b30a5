package ondisk

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
)

// Errors returned by the decoders.
var (
	// ErrCorrupt marks bytes that are not a valid record: bad magic,
	// version, checksum or field value.
	ErrCorrupt = errors.New("ondisk: corrupt record")
	// ErrZeroed marks an all-zero record (never written). It wraps nothing:
	// callers decide whether a zeroed record is acceptable.
	ErrZeroed = errors.New("ondisk: zeroed record")
	// ErrTooSmall marks a buffer too short for the structure.
	ErrTooSmall = errors.New("ondisk: buffer too small")
	// ErrTooLarge marks a value that does not fit the structure.
	ErrTooLarge = errors.New("ondisk: value too large for the structure")
)

// castagnoli is the CRC-32C table used by every checksum in the format.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcField is the checksum field as it is summed; never written. A local
// array would escape to the heap through crc32.Update, one allocation per
// record sealed or verified.
var crcField [4]byte

// Checksum is the CRC-32C of b with the 4 bytes at crcOff treated as zero,
// so a record can carry its own checksum.
func Checksum(b []byte, crcOff int) uint32 {
	c := crc32.Update(0, castagnoli, b[:crcOff])
	c = crc32.Update(c, castagnoli, crcField[:])
	return crc32.Update(c, castagnoli, b[crcOff+4:])
}

// seal writes the checksum of b into b[crcOff:crcOff+4].
func seal(b []byte, crcOff int) {
	binary.LittleEndian.PutUint32(b[crcOff:], Checksum(b, crcOff))
}

// sealed reports whether b carries a valid checksum at crcOff.
func sealed(b []byte, crcOff int) bool {
	return binary.LittleEndian.Uint32(b[crcOff:]) == Checksum(b, crcOff)
}

// putAddrs writes as many of addrs as fit at the start of dst, 8 bytes each,
// and zeroes the rest of dst: every byte is written once, where clearing
// the whole block first wrote most of them twice.
func putAddrs(dst []byte, addrs []uint64) {
	n := min(len(addrs), len(dst)/8)
	for i, a := range addrs[:n] {
		le.PutUint64(dst[8*i:], a)
	}
	clear(dst[8*n:])
}

// allZero reports whether every byte of b is zero.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

var le = binary.LittleEndian
