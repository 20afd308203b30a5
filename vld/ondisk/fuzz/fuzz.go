package fuzz

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// This file holds the fuzz targets of package ondisk, one function per
// decoder, shared by the two engines: the native targets (fuzz_test.go,
// `go test -fuzz`) and the go-fuzz adapters (gofuzz.go, built only with
// the gofuzz tag). Each returns go-fuzz's score (1: the input decoded) and
// an error when a property fails: what a decoder accepts must re-encode
// (and decode again), and no input may make it allocate more than
// fuzzlimit.AllocLimit. A decoder panic propagates: both engines report it.
// Each target decodes the bytes as given and a copy with a valid CRC, so
// that mutations get past the checksum and reach the field checks.

// seal stores the CRC of b[:len-4] in its last 4 bytes, as the encoders
// do (every record ends with the CRC-32C of what comes before it).
func seal(b []byte) {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], ondisk.CRC(b[:n]))
}

// fuzzVariants returns b and a copy with its trailing CRC recomputed.
func fuzzVariants(b []byte) [][]byte {
	if len(b) < 64 {
		return [][]byte{b}
	}
	c := append([]byte(nil), b...)
	seal(c)
	return [][]byte{b, c}
}

// fuzzDecode runs decode on both variants; reencode (may be nil) checks
// what decoded.
func fuzzDecode[T any](data []byte, decode func([]byte) (T, error), reencode func(T, int) error) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range fuzzVariants(data) {
			v, err := decode(x)
			if err != nil {
				continue
			}
			score = 1
			if reencode != nil {
				if err := reencode(v, len(x)); err != nil {
					return 0, err
				}
			}
		}
		return score, nil
	})
}

// reencodes is the round trip of a decoded value v of a record n bytes
// long: v encodes into n bytes, which decode again; same (when not nil)
// says whether what decoded again matches v.
func reencodes[T interface{ Encode([]byte) error }](what string, v T, n int, decode func([]byte) (T, error), same func(a, b T) bool) error {
	out := make([]byte, n)
	if err := v.Encode(out); err != nil {
		return fmt.Errorf("decoded %s does not re-encode: %w", what, err)
	}
	v2, err := decode(out)
	if err != nil {
		return fmt.Errorf("re-encoded %s rejected: %w", what, err)
	}
	if same != nil && !same(v, v2) {
		return fmt.Errorf("re-encoded %s differs", what)
	}
	return nil
}

func fuzzDecodeEntry(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeEntry, func(e *ondisk.Entry, n int) error {
		return reencodes("entry", e, n, ondisk.DecodeEntry, nil)
	})
}

func fuzzDecodeCheckpoint(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeCheckpoint, func(c *ondisk.Checkpoint, n int) error {
		return reencodes("checkpoint (its other tracks, directory blocks, their copies and writers)", c, n, ondisk.DecodeCheckpoint, func(a, b *ondisk.Checkpoint) bool {
			return slices.Equal(a.Extra, b.Extra) && slices.Equal(a.DirBlocks, b.DirBlocks) && slices.Equal(a.DirCopies, b.DirCopies) && slices.Equal(a.DirSeqs, b.DirSeqs)
		})
	})
}

func fuzzDecodeDirBlock(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeDirBlock, func(d *ondisk.DirBlock, n int) error {
		return reencodes("directory block (the places it names)", d, n, ondisk.DecodeDirBlock, func(a, b *ondisk.DirBlock) bool {
			return slices.Equal(a.Entries, b.Entries)
		})
	})
}

func fuzzDecodePieceCopy(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodePieceCopy, func(c *ondisk.PieceCopy, n int) error {
		return reencodes("piece copy", c, n, ondisk.DecodePieceCopy, func(a, b *ondisk.PieceCopy) bool {
			return a.Piece == b.Piece && a.Seq == b.Seq && a.Index == b.Index && slices.Equal(a.Payload, b.Payload)
		})
	})
}

func fuzzDecodeTail(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeTail, nil)
}

func fuzzDecodeSuperblock(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeSuperblock, nil)
}
