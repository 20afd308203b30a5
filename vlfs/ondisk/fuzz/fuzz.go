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

// fuzzResealed runs check on b and on its copy re-sealed at crcOff
// (resealed), within fuzzlimit's bounds. It scores 1 when check reports
// that a variant decoded, and fails the input on check's error.
func fuzzResealed(b []byte, crcOff int, check func(x []byte) (bool, error)) (int, error) {
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		ok, err := anyDecodes(resealed(b, crcOff), check)
		return score(ok), err
	})
}

// anyDecodes runs check on every variant and reports whether any decoded;
// it stops at check's first error.
func anyDecodes(variants [][]byte, check func(x []byte) (bool, error)) (bool, error) {
	decoded := false
	for _, x := range variants {
		ok, err := check(x)
		if err != nil {
			return false, err
		}
		decoded = decoded || ok
	}
	return decoded, nil
}

// score is go-fuzz's score of an input: 1 when it decoded.
func score(decoded bool) int {
	if decoded {
		return 1
	}
	return 0
}

func fuzzInode(data []byte) (int, error) {
	ino, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzResealed(b[:min(len(b), ondisk.InodeSize)], ondisk.InodeCRCOff, func(x []byte) (bool, error) {
		n, err := ondisk.DecodeInode(x, ino)
		if err != nil {
			return false, nil
		}
		out := make([]byte, ondisk.InodeSize)
		n.Encode(out)
		n2, err := ondisk.DecodeInode(out, ino)
		if err != nil {
			return false, fmt.Errorf("re-encoded inode rejected: %w", err)
		}
		if n2 != n {
			return false, fmt.Errorf("inode changed through a re-encoding:\n%+v\n%+v", n, n2)
		}
		return true, nil
	})
}

func fuzzInodeBlock(data []byte) (int, error) {
	first, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		return score(ondisk.DecodeInodeBlock(b, first, func(int, *ondisk.Inode) error { return nil }) == nil), nil
	})
}

func fuzzIndirect(data []byte) (int, error) {
	p, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	owner, level := p>>8, int(p&0xff)
	return fuzzResealed(b, ondisk.BlockCRCOff, func(x []byte) (bool, error) {
		return pointersRoundTrip("indirect block", x, ondisk.PerIndirectFor,
			func(b []byte, dst []uint64, sums []uint32) error {
				return ondisk.DecodeIndirect(b, owner, level, dst, sums)
			},
			func(b []byte, dst []uint64, sums []uint32) { ondisk.EncodeIndirect(b, owner, level, dst, sums) })
	})
}

func fuzzDirBlock(data []byte) (int, error) {
	owner, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzResealed(b, ondisk.BlockCRCOff, func(x []byte) (bool, error) {
		var ents []ondisk.DirEntry
		if ondisk.DecodeDir(x, owner, func(e ondisk.DirEntry) error { ents = append(ents, e); return nil }) != nil {
			return false, nil
		}
		out := make([]byte, len(x))
		if err := ondisk.EncodeDir(out, owner, ents); err != nil {
			return false, fmt.Errorf("accepted entries do not re-encode: %w", err)
		}
		if err := ondisk.DecodeDir(out, owner, func(ondisk.DirEntry) error { return nil }); err != nil {
			return false, fmt.Errorf("re-encoded directory block rejected: %w", err)
		}
		return true, nil
	})
}

func fuzzXattrBlock(data []byte) (int, error) {
	owner, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzResealed(b, ondisk.BlockCRCOff, func(x []byte) (bool, error) {
		var xs []ondisk.Xattr
		if ondisk.DecodeXattrs(x, owner, func(a ondisk.Xattr) error { xs = append(xs, a); return nil }) != nil {
			return false, nil
		}
		if err := ondisk.EncodeXattrs(make([]byte, len(x)), owner, xs); err != nil {
			return false, fmt.Errorf("accepted attributes do not re-encode: %w", err)
		}
		return true, nil
	})
}

func fuzzPiece(data []byte) (int, error) {
	index, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzResealed(b, ondisk.PieceCRCOff, func(x []byte) (bool, error) {
		return pointersRoundTrip("piece", x, ondisk.PerPieceFor,
			func(b []byte, dst []uint64, sums []uint32) error {
				return ondisk.DecodePiece(b, uint32(index), dst, sums)
			},
			func(b []byte, dst []uint64, sums []uint32) { ondisk.EncodePiece(b, uint32(index), dst, sums) })
	})
}

// pointersRoundTrip is the property of the two structures that hold a
// pointer array (indirect blocks, map pieces), in both layouts (plain and
// summed): what of x decodes into perFor(len(x), summed) pointers (and sums
// when summed) re-encodes to bytes that decode to the same values. ok
// reports that x decoded in either layout.
func pointersRoundTrip(what string, x []byte, perFor func(n int, summed bool) int,
	decode func([]byte, []uint64, []uint32) error, encode func([]byte, []uint64, []uint32)) (ok bool, err error) {
	for _, summed := range []bool{false, true} {
		n := perFor(len(x), summed)
		arrays := func() ([]uint64, []uint32) {
			if summed {
				return make([]uint64, n), make([]uint32, n)
			}
			return make([]uint64, n), nil
		}
		dst, sums := arrays()
		if decode(x, dst, sums) != nil {
			continue
		}
		ok = true
		out := make([]byte, len(x))
		encode(out, dst, sums)
		dst2, sums2 := arrays()
		if err := decode(out, dst2, sums2); err != nil {
			return true, fmt.Errorf("re-encoded %s (summed %v) rejected: %w", what, summed, err)
		}
		if !slices.Equal(dst, dst2) || !slices.Equal(sums, sums2) {
			return true, fmt.Errorf("%s (summed %v) changed through a re-encoding", what, summed)
		}
	}
	return ok, nil
}

// fuzzRecord decodes a record, and a copy sealed over the length its
// header gives, then the epoch decoder on the same bytes.
func fuzzRecord(data []byte) (int, error) {
	seq, b, ok := fuzzParams(data)
	if !ok {
		return 0, nil
	}
	return fuzzlimit.Run(fuzzlimit.Hang, func() (int, error) {
		xs := [][]byte{b}
		if len(b) >= ondisk.RecordHeaderSize {
			if n := int(binary.LittleEndian.Uint32(b[ondisk.RecordUsedOff:])); n >= ondisk.RecordHeaderSize && n <= len(b) {
				c := append([]byte(nil), b...)
				seal(c[:n], ondisk.RecordCRCOff)
				xs = append(xs, c)
			}
		}
		record, err := anyDecodes(xs, func(x []byte) (bool, error) {
			r, err := ondisk.DecodeRecord(x, uint32(seq))
			if err != nil {
				return false, nil
			}
			out := make([]byte, len(x))
			if _, err := ondisk.EncodeRecord(out, &r); err != nil {
				return false, fmt.Errorf("decoded record does not re-encode: %w", err)
			}
			if _, err := ondisk.DecodeRecord(out, uint32(seq)); err != nil {
				return false, fmt.Errorf("re-encoded record rejected: %w", err)
			}
			return true, nil
		})
		if err != nil {
			return 0, err
		}
		epoch, err := anyDecodes(resealed(b[:min(len(b), ondisk.EpochSize)], ondisk.EpochCRCOff), func(x []byte) (bool, error) {
			e, err := ondisk.DecodeEpoch(x)
			if err != nil {
				return false, nil
			}
			out := make([]byte, ondisk.EpochSize)
			if err := ondisk.EncodeEpoch(out, e); err != nil {
				return false, err
			}
			if _, err := ondisk.DecodeEpoch(out); err != nil {
				return false, fmt.Errorf("re-encoded epoch rejected: %w", err)
			}
			return true, nil
		})
		if err != nil {
			return 0, err
		}
		return score(record || epoch), nil
	})
}

func fuzzSuperblock(data []byte) (int, error) {
	return fuzzResealed(data[:min(len(data), ondisk.SuperblockSize)], ondisk.SuperblockCRCOff, func(x []byte) (bool, error) {
		s, err := ondisk.DecodeSuperblock(x)
		if err != nil {
			return false, nil
		}
		if _, err := ondisk.DecodeSuperblock(s.Encode()); err != nil {
			return false, fmt.Errorf("re-encoded superblock rejected: %w", err)
		}
		return true, nil
	})
}
