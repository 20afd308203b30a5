package vlfs

import (
	"fmt"

	"github.com/vlfs/vlfs/vlfs/ondisk"
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
// maps (data true) or does not map, skipping whole subtrees; past the last
// block the tree can map, everything is a hole (math.MaxUint64 when
// looking for data).
func (fs *FS) treeScanLocked(in *inode, from uint64, data bool) (uint64, error) {
	for lbn := from; lbn < ondisk.NumDirect; lbn++ {
		if (in.d.Direct[lbn] != 0) == data {
			return lbn, nil
		}
	}
	for r := 0; r < ondisk.NumIndirect; r++ {
		base, span := fs.geo.rootBase(r), fs.geo.span(r+1)
		if from >= base+span {
			continue
		}
		k := nodeKey{root: uint8(r), height: uint8(r + 1)}
		lbn, found, err := fs.scanNodeLocked(in, k, in.d.Indirect[r], base, max(from, base), data)
		if err != nil || found {
			return lbn, err
		}
	}
	if data {
		return ^uint64(0), nil
	}
	return max(from, fs.geo.maxBlock), nil
}

// scanNodeLocked looks below node k (at ptr, or loaded), which covers the
// blocks from base+k.idx*span(height), for the first block at or after
// from that is mapped (data true) or not. Like forEachBlockLocked it
// prefers the loaded node and does not cache what it reads.
func (fs *FS) scanNodeLocked(in *inode, k nodeKey, ptr, base, from uint64, data bool) (uint64, bool, error) {
	h := int(k.height)
	lo := base + k.idx*fs.geo.span(h)
	n := in.nodes[k]
	if n == nil {
		if ptr == 0 { // a missing subtree is all hole
			return max(from, lo), !data, nil
		}
		var err error
		if n, err = fs.readTreeNodeLocked(in, k, ptr); err != nil {
			return 0, false, err
		}
	}
	child := fs.geo.span(h - 1)
	for s := (from - lo) / child; s < fs.geo.per; s++ {
		clo := lo + s*child
		c := n.ptrs[s]
		if h == 1 {
			if (c != 0) == data {
				return max(from, clo), true, nil
			}
			continue
		}
		ck := nodeKey{root: k.root, height: k.height - 1, idx: k.idx*fs.geo.per + s}
		lbn, found, err := fs.scanNodeLocked(in, ck, c, base, max(from, clo), data)
		if err != nil || found {
			return lbn, found, err
		}
	}
	return 0, false, nil
}
