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

func fuzzDecodeEntry(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeEntry, func(e *ondisk.Entry, n int) error {
		out := make([]byte, n)
		if err := e.Encode(out); err != nil {
			return fmt.Errorf("decoded entry does not re-encode: %w", err)
		}
		if _, err := ondisk.DecodeEntry(out); err != nil {
			return fmt.Errorf("re-encoded entry rejected: %w", err)
		}
		return nil
	})
}

func fuzzDecodeCheckpoint(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeCheckpoint, func(c *ondisk.Checkpoint, n int) error {
		out := make([]byte, n)
		if err := c.Encode(out); err != nil {
			return fmt.Errorf("decoded checkpoint does not re-encode: %w", err)
		}
		c2, err := ondisk.DecodeCheckpoint(out)
		if err != nil {
			return fmt.Errorf("re-encoded checkpoint rejected: %w", err)
		}
		if !slices.Equal(c2.Extra, c.Extra) || !slices.Equal(c2.DirBlocks, c.DirBlocks) {
			return fmt.Errorf("re-encoded checkpoint lists other tracks or directory blocks")
		}
		return nil
	})
}

func fuzzDecodeDirBlock(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeDirBlock, func(d *ondisk.DirBlock, n int) error {
		out := make([]byte, n)
		if err := d.Encode(out); err != nil {
			return fmt.Errorf("decoded directory block does not re-encode: %w", err)
		}
		d2, err := ondisk.DecodeDirBlock(out)
		if err != nil {
			return fmt.Errorf("re-encoded directory block rejected: %w", err)
		}
		if !slices.Equal(d2.Entries, d.Entries) {
			return fmt.Errorf("re-encoded directory block names other places")
		}
		return nil
	})
}

func fuzzDecodePieceCopy(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodePieceCopy, func(c *ondisk.PieceCopy, n int) error {
		out := make([]byte, n)
		if err := c.Encode(out); err != nil {
			return fmt.Errorf("decoded piece copy does not re-encode: %w", err)
		}
		c2, err := ondisk.DecodePieceCopy(out)
		if err != nil {
			return fmt.Errorf("re-encoded piece copy rejected: %w", err)
		}
		if c2.Piece != c.Piece || c2.Seq != c.Seq || c2.Index != c.Index || !slices.Equal(c2.Payload, c.Payload) {
			return fmt.Errorf("re-encoded piece copy differs")
		}
		return nil
	})
}

func fuzzDecodeTail(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeTail, nil)
}

func fuzzDecodeSuperblock(data []byte) (int, error) {
	return fuzzDecode(data, ondisk.DecodeSuperblock, nil)
}
