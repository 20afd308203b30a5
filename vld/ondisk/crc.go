package ondisk

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
)

// MinRecordBlock is the smallest block any record decodes from: every
// header, pointer area and payload fits in it.
const MinRecordBlock = 512

// FormatVersion is the only format version this code writes and reads.
// Bump it (and keep a decoder for the old one) for any layout change.
const FormatVersion = 1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CRC returns the CRC-32C of b. It is the one checksum helper of the project.
func CRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// seal stores the CRC of b[:len-4] in the last 4 bytes of b.
func seal(b []byte) {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], CRC(b[:n]))
}

// open checks the magic, the version and the trailing CRC of a block.
func open(b []byte, magic string, what string) error {
	_, err := openVersions(b, magic, what, FormatVersion)
	return err
}

// openVersions is open for a record that has had several versions: it
// accepts any of versions and returns the block's.
func openVersions(b []byte, magic string, what string, versions ...uint16) (uint16, error) {
	if len(b) < MinRecordBlock {
		return 0, fmt.Errorf("%s: %d bytes: %w", what, len(b), ErrTooSmall)
	}
	if string(b[:8]) != magic {
		if allZero(b) {
			return 0, fmt.Errorf("%s: %w", what, ErrZeroed)
		}
		return 0, fmt.Errorf("%s: magic %q: %w", what, b[:8], ErrBadMagic)
	}
	n := len(b) - 4
	if got, want := binary.LittleEndian.Uint32(b[n:]), CRC(b[:n]); got != want {
		return 0, fmt.Errorf("%s: crc %08x, computed %08x: %w", what, got, want, ErrChecksum)
	}
	v := binary.LittleEndian.Uint16(b[8:])
	if !slices.Contains(versions, v) {
		return 0, fmt.Errorf("%s: version %d (this build reads %v): %w", what, v, versions, ErrVersion)
	}
	return v, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// UUID identifies one format of a volume.
type UUID [16]byte

func (u UUID) String() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
}

// Ref names one virtual-log entry: where it is and which sequence number it
// must carry there. A Ref whose block now holds anything else is dangling
// (its target was recycled) and is not followed.
type Ref struct {
	Addr uint64
	Seq  uint64
}

// IsZero reports an empty reference.
func (r Ref) IsZero() bool { return r.Addr == 0 && r.Seq == 0 }

const refSize = 16

func putRef(b []byte, r Ref) {
	binary.LittleEndian.PutUint64(b, r.Addr)
	binary.LittleEndian.PutUint64(b[8:], r.Seq)
}

func getRef(b []byte) Ref {
	return Ref{Addr: binary.LittleEndian.Uint64(b), Seq: binary.LittleEndian.Uint64(b[8:])}
}
