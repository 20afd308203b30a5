package vld

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Superblock copies (issue 34). Block 0 is written once, by Format, and
// everything else is found from it: one damaged block 0 used to lose the
// whole volume. Format also writes the superblock, byte for byte, at the
// device's block a quarter in and at its last block (btrfs mirrors its
// superblock at fixed offsets, ext4 keeps backups in its block groups).
// Both places follow from the device size and the block size alone, so
// that they can be found when block 0 is unreadable: Open tries block 0,
// then each copy for every block size a volume may have.
//
// A copy is a block of the volume like any other as far as the allocator
// goes: Open marks a copy used when it holds this volume's superblock
// (same bytes as the one in use), so images formatted before copies
// existed, whose blocks there are ordinary ones, are read as before. A
// read-write open that had to use a copy writes block 0 back from it.

// superCopyAddrs are the blocks of a device of devSize bytes, in blocks of
// bs, that hold the superblock's copies: the one a quarter into the device
// and the last one. (The middle block, first chosen, made bench updates'
// eager 80 % point 3 % slower over 24 seeds, 0.886 against 0.859 ms
// without copies, where a quarter cost nothing measurable: 0.850.)
func superCopyAddrs(devSize int64, bs int) []Addr {
	n := devSize / int64(bs)
	if n < 64 { // Format refuses such devices
		return nil
	}
	return []Addr{Addr(n / 4), Addr(n - 1)}
}

// writeSuperCopies writes the encoded superblock sb (one block) at its
// copy addresses on dev.
func writeSuperCopies(dev interface {
	WriteAt([]byte, int64) (int, error)
	Size() int64
}, sb []byte) error {
	for _, a := range superCopyAddrs(dev.Size(), len(sb)) {
		if _, err := dev.WriteAt(sb, int64(a)*int64(len(sb))); err != nil {
			return fmt.Errorf("writing the superblock's copy at block %d: %w", a, err)
		}
	}
	return nil
}

// superBlockSizes are the block sizes to look for copies with: the one
// block 0 names if it is a possible one, then every possible one.
func superBlockSizes(primary []byte) []int {
	var out []int
	if len(primary) >= 16 {
		if bs := int(leUint32(primary[12:])); bs >= ondisk.MinBlockSize && bs <= 1<<20 && bs&(bs-1) == 0 {
			out = append(out, bs)
		}
	}
	for bs := ondisk.MinBlockSize; bs <= 1<<20; bs *= 2 {
		if len(out) == 0 || bs != out[0] {
			out = append(out, bs)
		}
	}
	return out
}

// readSuperCopy looks for a valid copy of the superblock when block 0
// failed to decode (why0). It returns the copy, its raw block and where it
// was, or why0 if no copy is valid.
func (v *Volume) readSuperCopy(primary []byte, why0 error) (*ondisk.Superblock, []byte, Addr, error) {
	size := v.dev.Size()
	for _, bs := range superBlockSizes(primary) {
		for _, a := range superCopyAddrs(size, bs) {
			b := make([]byte, bs)
			if _, err := v.dev.ReadAt(b, int64(a)*int64(bs)); err != nil {
				continue
			}
			sb, err := ondisk.DecodeSuperblock(b)
			if err != nil || int(sb.BlockSize) != bs || int64(sb.NumBlocks)*int64(bs) > size {
				continue
			}
			return sb, b, a, nil
		}
	}
	return nil, nil, 0, why0
}

// markSuperCopiesLocked marks the copies that hold the superblock in use
// (raw: its bytes) used, so that nothing is ever written over them, and
// returns those it found. A copy that is missing or damaged is left to the
// allocator: the volume still has the others.
func (v *Volume) markSuperCopiesLocked(raw []byte) []Addr {
	var found []Addr
	b := make([]byte, v.bs)
	for _, a := range superCopyAddrs(v.dev.Size(), v.bs) {
		if _, err := v.dev.ReadAt(b, int64(a)*int64(v.bs)); err != nil || string(b) != string(raw) {
			continue
		}
		found = append(found, a)
		if a < v.sb.NumBlocks && a >= ondisk.FixedBlocks {
			v.alloc.MarkUsed(int64(a))
			v.superCopies = append(v.superCopies, a)
		}
	}
	return found
}

// restorePrimary writes block 0 back from the copy in use (raw), for a
// read-write open that found block 0 damaged.
func (v *Volume) restorePrimary(raw []byte) error {
	if _, err := v.dev.WriteAt(raw, 0); err != nil {
		return fmt.Errorf("open: restoring the superblock from its copy: %w", err)
	}
	if err := v.dev.Flush(); err != nil {
		return fmt.Errorf("open: restoring the superblock from its copy: flush: %w", err)
	}
	return nil
}

// superDamaged reports whether a decode error of block 0 may be damage
// that a copy can stand in for (not a read error).
func superDamaged(err error) bool {
	return errors.Is(err, ondisk.ErrBadMagic) || errors.Is(err, ondisk.ErrZeroed) ||
		errors.Is(err, ondisk.ErrCorrupt) || errors.Is(err, ondisk.ErrChecksum) || errors.Is(err, ondisk.ErrTooSmall)
}

// logf passes a diagnostic to Options.Logf, if set.
func (v *Volume) logf(format string, args ...any) {
	if v.opts.Logf != nil {
		v.opts.Logf(format, args...)
	}
}
