package fuzz

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/internal/fuzzlimit"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// This file holds the fuzz targets of package ondisk, one function per
// decoder, shared by the two engines: the native targets (fuzz_test.go,
// `go test -fuzz`) and the go-fuzz adapters (gofuzz.go, built only with
// the gofuzz tag). Each takes the fuzzer's bytes and returns go-fuzz's
// score (1: the input decoded, keep it in the corpus; 0 otherwise) and an
// error when a property fails: whatever a decoder accepts must re-encode
// to something it accepts again, and no input may make it allocate more
// than fuzzlimit.AllocLimit. A decoder panic propagates: both engines
// report it.
//
// Inputs whose length matters carry parameters in their first 8 bytes
// (an owner inode number, a level); each target decodes both the bytes as
// given and a copy with a correct checksum, so that mutations get past
// the CRC and reach the field checks.

// seal writes the checksum of b into b[crcOff:crcOff+4], as ondisk's
// encoders do.
func seal(b []byte, crcOff int) {
	binary.LittleEndian.PutUint32(b[crcOff:], ondisk.Checksum(b, crcOff))
}

// fuzzParams splits 8 parameter bytes off data.
func fuzzParams(data []byte) (uint64, []byte, bool) {
	if len(data) < 8 {
		return 0, nil, false
	}
	return binary.LittleEndian.Uint64(data), data[8:], true
}

// resealed returns b and, if it is long enough, a copy of b carrying a
// valid checksum at crcOff.
func resealed(b []byte, crcOff int) [][]byte {
	if len(b) < crcOff+4 {
		return [][]byte{b}
	}
	c := append([]byte(nil), b...)
	seal(c, crcOff)
	return [][]byte{b, c}
}

func fuzzInode(data []byte) (int, error) {
	ino, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(b[:min(len(b), ondisk.InodeSize)], ondisk.InodeCRCOff) {
			n, err := ondisk.DecodeInode(x, ino)
			if err != nil {
				continue
			}
			out := make([]byte, ondisk.InodeSize)
			n.Encode(out)
			n2, err := ondisk.DecodeInode(out, ino)
			if err != nil {
				return 0, fmt.Errorf("re-encoded inode rejected: %w", err)
			}
			if n2 != n {
				return 0, fmt.Errorf("inode changed through a re-encoding:\n%+v\n%+v", n, n2)
			}
			score = 1
		}
		return score, nil
	})
}

func fuzzInodeBlock(data []byte) (int, error) {
	first, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		if ondisk.DecodeInodeBlock(b, first, func(int, *ondisk.Inode) error { return nil }) != nil {
			return 0, nil
		}
		return 1, nil
	})
}

func fuzzIndirect(data []byte) (int, error) {
	p, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	owner, level := p>>8, int(p&0xff)
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(b, ondisk.BlockCRCOff) {
			for _, summed := range []bool{false, true} {
				ok, err := pointersRoundTrip("indirect block", x, ondisk.PerIndirectFor(len(x), summed), summed,
					func(b []byte, dst []uint64, sums []uint32) error {
						return ondisk.DecodeIndirect(b, owner, level, dst, sums)
					},
					func(b []byte, dst []uint64, sums []uint32) { ondisk.EncodeIndirect(b, owner, level, dst, sums) })
				if err != nil {
					return 0, err
				}
				if ok {
					score = 1
				}
			}
		}
		return score, nil
	})
}

func fuzzDirBlock(data []byte) (int, error) {
	owner, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(b, ondisk.BlockCRCOff) {
			var ents []ondisk.DirEntry
			if ondisk.DecodeDir(x, owner, func(e ondisk.DirEntry) error { ents = append(ents, e); return nil }) != nil {
				continue
			}
			out := make([]byte, len(x))
			if err := ondisk.EncodeDir(out, owner, ents); err != nil {
				return 0, fmt.Errorf("accepted entries do not re-encode: %w", err)
			}
			if err := ondisk.DecodeDir(out, owner, func(ondisk.DirEntry) error { return nil }); err != nil {
				return 0, fmt.Errorf("re-encoded directory block rejected: %w", err)
			}
			score = 1
		}
		return score, nil
	})
}

func fuzzXattrBlock(data []byte) (int, error) {
	owner, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(b, ondisk.BlockCRCOff) {
			var xs []ondisk.Xattr
			if ondisk.DecodeXattrs(x, owner, func(a ondisk.Xattr) error { xs = append(xs, a); return nil }) != nil {
				continue
			}
			out := make([]byte, len(x))
			if err := ondisk.EncodeXattrs(out, owner, xs); err != nil {
				return 0, fmt.Errorf("accepted attributes do not re-encode: %w", err)
			}
			score = 1
		}
		return score, nil
	})
}

func fuzzPiece(data []byte) (int, error) {
	index, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(b, ondisk.PieceCRCOff) {
			for _, summed := range []bool{false, true} {
				ok, err := pointersRoundTrip("piece", x, ondisk.PerPieceFor(len(x), summed), summed,
					func(b []byte, dst []uint64, sums []uint32) error {
						return ondisk.DecodePiece(b, uint32(index), dst, sums)
					},
					func(b []byte, dst []uint64, sums []uint32) { ondisk.EncodePiece(b, uint32(index), dst, sums) })
				if err != nil {
					return 0, err
				}
				if ok {
					score = 1
				}
			}
		}
		return score, nil
	})
}

// pointersRoundTrip is the property of the two structures that hold a
// pointer array (indirect blocks, map pieces), in either layout: what of x
// decodes into n pointers (and sums when summed) re-encodes to bytes that
// decode to the same values. ok reports that x decoded.
func pointersRoundTrip(what string, x []byte, n int, summed bool,
	decode func([]byte, []uint64, []uint32) error, encode func([]byte, []uint64, []uint32)) (bool, error) {
	arrays := func() ([]uint64, []uint32) {
		if summed {
			return make([]uint64, n), make([]uint32, n)
		}
		return make([]uint64, n), nil
	}
	dst, sums := arrays()
	if decode(x, dst, sums) != nil {
		return false, nil
	}
	out := make([]byte, len(x))
	encode(out, dst, sums)
	dst2, sums2 := arrays()
	if err := decode(out, dst2, sums2); err != nil {
		return true, fmt.Errorf("re-encoded %s (summed %v) rejected: %w", what, summed, err)
	}
	if !slices.Equal(dst, dst2) || !slices.Equal(sums, sums2) {
		return true, fmt.Errorf("%s (summed %v) changed through a re-encoding", what, summed)
	}
	return true, nil
}

// fuzzRecord decodes a record, and a copy sealed over the length its
// header gives, then the epoch decoder on the same bytes.
func fuzzRecord(data []byte) (int, error) {
	seq, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		xs := [][]byte{b}
		if len(b) >= ondisk.RecordHeaderSize {
			if n := int(binary.LittleEndian.Uint32(b[ondisk.RecordUsedOff:])); n >= ondisk.RecordHeaderSize && n <= len(b) {
				c := append([]byte(nil), b...)
				seal(c[:n], ondisk.RecordCRCOff)
				xs = append(xs, c)
			}
		}
		for _, x := range xs {
			r, err := ondisk.DecodeRecord(x, uint32(seq))
			if err != nil {
				continue
			}
			out := make([]byte, len(x))
			if _, err := ondisk.EncodeRecord(out, &r); err != nil {
				return 0, fmt.Errorf("decoded record does not re-encode: %w", err)
			}
			if _, err := ondisk.DecodeRecord(out, uint32(seq)); err != nil {
				return 0, fmt.Errorf("re-encoded record rejected: %w", err)
			}
			score = 1
		}
		for _, x := range resealed(b[:min(len(b), ondisk.EpochSize)], ondisk.EpochCRCOff) {
			if e, err := ondisk.DecodeEpoch(x); err == nil {
				out := make([]byte, ondisk.EpochSize)
				if err := ondisk.EncodeEpoch(out, e); err != nil {
					return 0, err
				}
				if _, err := ondisk.DecodeEpoch(out); err != nil {
					return 0, fmt.Errorf("re-encoded epoch rejected: %w", err)
				}
				score = 1
			}
		}
		return score, nil
	})
}

func fuzzSuperblock(data []byte) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		score := 0
		for _, x := range resealed(data[:min(len(data), ondisk.SuperblockSize)], ondisk.SuperblockCRCOff) {
			s, err := ondisk.DecodeSuperblock(x)
			if err != nil {
				continue
			}
			if _, err := ondisk.DecodeSuperblock(s.Encode()); err != nil {
				return 0, fmt.Errorf("re-encoded superblock rejected: %w", err)
			}
			score = 1
		}
		return score, nil
	})
}
