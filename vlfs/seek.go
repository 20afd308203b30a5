package vlfs

import (
	"errors"
	"fmt"
)

// Seek answers lseek(2)'s SEEK_DATA (data true) and SEEK_HOLE (data
// false) for file ino: the first offset at or after off in data, or in a
// hole. Holes are found at block granularity. A block is data if the tree
// maps it or the write buffer holds it, including blocks reserved by
// fallocate and not written yet (they read as zeros; lseek(2) lets a file
// system call any zeros data). The end of the file is a hole. An offset at
// or past the end, and SEEK_DATA with no data after off, are ErrNoOffset
// (ENXIO), as lseek(2) specifies.
func (fs *FS) Seek(ino Ino, off int64, data bool) (int64, error) {
	fs.stats.count(opSeek, 0)
	if off < 0 {
		return 0, fmt.Errorf("seek to %d: %w", off, ErrInvalid)
	}
	fs.lock()
	defer fs.unlock()
	in, err := fs.fileLocked(ino)
	if err != nil {
		return 0, err
	}
	size := in.d.Size
	if uint64(off) >= size {
		return 0, fmt.Errorf("seek from %d in a file of %d bytes: %w", off, size, ErrNoOffset)
	}
	bs := uint64(fs.geo.bs)
	end := (size + bs - 1) / bs
	lbn, err := fs.scanLocked(in, uint64(off)/bs, end, data)
	if err != nil {
		return 0, err
	}
	switch {
	case lbn < end:
		return max(off, int64(lbn*bs)), nil
	case data:
		return 0, fmt.Errorf("seek for data from %d in a file of %d bytes: %w", off, size, ErrNoOffset)
	default:
		return int64(size), nil
	}
}

// scanLocked returns the first block in [from, end) that holds data (data
// true) or is a hole, or end if there is none. A block is data if the tree
// maps it or in.data holds it.
func (fs *FS) scanLocked(in *inode, from, end uint64, data bool) (uint64, error) {
	if data {
		lbn, err := fs.treeScanLocked(in, from, true)
		if err != nil {
			return 0, err
		}
		for b := range in.data {
			if b >= from && b < lbn {
				lbn = b
			}
		}
		return min(lbn, end), nil
	}
	for lbn := from; lbn < end; lbn++ {
		var err error
		if lbn, err = fs.treeScanLocked(in, lbn, false); err != nil {
			return 0, err
		}
		if _, buffered := in.data[lbn]; !buffered || lbn >= end {
			return min(lbn, end), nil
		}
	}
	return end, nil
}

// treeScanLocked returns the first block at or after from that the tree
// maps (data true) or does not map; past the last mapped block everything
// is a hole (math.MaxUint64 when looking for data). The walk skips the
// subtrees below from and stops at the answer.
func (fs *FS) treeScanLocked(in *inode, from uint64, data bool) (uint64, error) {
	// Looking for data, at becomes the first mapped block; looking for a
	// hole, it is the first block not seen mapped so far.
	at, found := from, false
	err := fs.forEachBlockFromLocked(in, from, func(node bool, lbn, _ uint64, _ uint32) error {
		switch {
		case node:
			return nil
		case data:
			at, found = lbn, true
			return errStopWalk
		case lbn > at:
			return errStopWalk
		}
		at = lbn + 1
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return 0, err
	}
	if data && !found {
		return ^uint64(0), nil
	}
	return at, nil
}

// errStopWalk ends a block walk early.
var errStopWalk = errors.New("vlfs: walk stopped")
