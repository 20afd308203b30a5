package vlfs

// Punching holes (fallocate PUNCH_HOLE) and zeroing ranges (ZERO_RANGE).
//
// A punched whole block loses its pointer and is freed, as truncate frees
// the blocks past the end (punchBlocksLocked); the volume reuses it after
// the next commit, like every freed block. A block the range covers only in
// part gets zeros written into that part, through the dirty buffer. The
// range's last block counts as whole when the range reaches the end of the
// file, since the bytes past the end read as zeros anyway.

import "github.com/vlfs/vlfs/vlfs/ondisk"

// punchLocked zeroes bytes [off, end) of in, clipped to its size, freeing
// the whole blocks. It checks the space it needs (the partial blocks it
// rewrites) before changing anything.
func (fs *FS) punchLocked(in *inode, off, end uint64) error {
	end = min(end, in.d.Size)
	if off >= end {
		return nil
	}
	bs := uint64(fs.geo.bs)
	wholeFrom := (off + bs - 1) / bs // first block wholly in the range
	wholeTo := end / bs              // past the last one
	if end == in.d.Size {
		wholeTo = (end + bs - 1) / bs
	}
	type part struct{ lbn, lo, hi uint64 } // bytes [lo, hi) of block lbn
	var parts []part
	if first := off / bs; first < wholeFrom {
		parts = append(parts, part{first, off - first*bs, min(end, wholeFrom*bs) - first*bs})
	}
	if last := wholeTo; last*bs < end && (len(parts) == 0 || parts[0].lbn != last) {
		parts = append(parts, part{last, 0, end - last*bs})
	}
	need := int64(0)
	for _, p := range parts {
		if _, ok := in.data[p.lbn]; ok {
			continue
		}
		a, err := fs.bmapLocked(in, p.lbn)
		if err != nil {
			return err
		}
		if isBlock(a) {
			need++
		}
	}
	if need > 0 { // a punch that only frees never fails for space, as a delete
		if err := fs.checkSpaceLocked(need); err != nil {
			return err
		}
	}
	for _, p := range parts {
		if err := fs.zeroPartLocked(in, p.lbn, p.lo, p.hi); err != nil {
			return err
		}
	}
	if wholeFrom < wholeTo {
		if err := fs.punchBlocksLocked(in, wholeFrom, wholeTo); err != nil {
			return err
		}
	}
	t := now()
	in.d.Mtime, in.d.Ctime = t, t
	fs.touchLocked(in)
	return nil
}

// zeroPartLocked writes zeros over bytes [lo, hi) of block lbn when the
// block holds data; a hole, or a block reserved by fallocate and not
// written yet, reads as zeros already.
func (fs *FS) zeroPartLocked(in *inode, lbn, lo, hi uint64) error {
	if b, ok := in.data[lbn]; ok {
		if b != nil { // nil: reserved, reads as zeros
			clear(fs.ownBufLocked(in, lbn, b)[lo:hi])
		}
		return nil
	}
	a, err := fs.bmapLocked(in, lbn)
	if err != nil || !isBlock(a) { // a hole or unwritten: zeros already
		return err
	}
	b, err := fs.dirtyBlockLocked(in, lbn, false, nil)
	if err != nil {
		return err
	}
	clear(b[lo:hi])
	return nil
}

// zeroRangeLocked is ZERO_RANGE: [off, end) reads as zeros and is
// allocated, as fallocate mode 0 (or KEEP_SIZE) allocates it. No block is
// freed here: every block of the range becomes a buffered zero block (a
// nil buffer, as fallocate reserves; the write-out writes zeros in place of
// the old block, which it frees), and the partial blocks at either end get
// zeros in their buffers. All the space is checked once, before anything
// changes, with room for what the change itself adds to the metadata
// estimate, so ENOSPC never comes after a change.
func (fs *FS) zeroRangeLocked(ino Ino, off, end uint64, keepSize bool) error {
	in, err := fs.writableFileLocked(ino)
	if err != nil {
		return err
	}
	bs := uint64(fs.geo.bs)
	past := int64(0) // blocks past the end that KEEP_SIZE only checks for
	if keepSize && end > in.d.Size {
		past = int64((end - max(off, in.d.Size) + bs - 1) / bs)
		end = in.d.Size
	}
	need := int64(0)
	var edges []uint64 // partial blocks on disk, to read before any change
	for lbn := off / bs; off < end && lbn <= (end-1)/bs; lbn++ {
		if _, ok := in.data[lbn]; ok {
			continue
		}
		need++
		lo, hi := max(off, lbn*bs), min(end, (lbn+1)*bs)
		if hi-lo == bs || hi < (lbn+1)*bs && hi == in.d.Size && lo == lbn*bs {
			continue // whole, or all of the file's bytes in the block
		}
		a, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return err
		}
		if isBlock(a) {
			edges = append(edges, lbn)
		}
	}
	slack := need/int64(fs.geo.per) + 1 // reserved/per in the estimate
	if _, dirty := fs.dirty[in.ino]; !dirty {
		slack += 2 // the estimate's share of a dirty inode
	}
	if err := fs.checkSpaceLocked(need + past + slack); err != nil {
		return err
	}
	for _, lbn := range edges {
		lo, hi := max(off, lbn*bs)-lbn*bs, min(end, (lbn+1)*bs)-lbn*bs
		if err := fs.zeroPartLocked(in, lbn, lo, hi); err != nil {
			return err
		}
	}
	for lbn := off / bs; off < end && lbn <= (end-1)/bs; lbn++ {
		lo, hi := max(off, lbn*bs), min(end, (lbn+1)*bs)
		b, ok := in.data[lbn]
		switch {
		case ok && b != nil && (hi-lo == bs || hi == in.d.Size && lo == lbn*bs):
			fs.forgetDirtyLocked(in, lbn, b) // a buffer wholly zeroed: back to a reservation
			fs.reserved++
			if in.data == nil {
				in.data = map[uint64][]byte{}
			}
			in.data[lbn] = nil
		case ok && b != nil:
			clear(fs.ownBufLocked(in, lbn, b)[lo-lbn*bs : hi-lbn*bs])
		case !ok:
			a, err := fs.bmapLocked(in, lbn)
			if err != nil {
				return err
			}
			if a == ondisk.UnwrittenAddr {
				continue // reads as zeros and keeps its space already
			}
			if a == 0 {
				in.d.Blocks++
			}
			if in.data == nil {
				in.data = map[uint64][]byte{}
			}
			in.data[lbn] = nil
			fs.reserved++
		}
	}
	t := now()
	if !keepSize && end > in.d.Size {
		in.d.Size = end
	}
	in.d.Mtime, in.d.Ctime = t, t
	fs.touchLocked(in)
	return nil
}

// punchHoleLocked is PUNCH_HOLE (with KEEP_SIZE, which linux requires).
func (fs *FS) punchHoleLocked(ino Ino, off, end uint64) error {
	in, err := fs.writableFileLocked(ino)
	if err != nil {
		return err
	}
	return fs.punchLocked(in, off, end)
}
