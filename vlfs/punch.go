package vlfs

// Punching holes (fallocate PUNCH_HOLE) and zeroing ranges (ZERO_RANGE).
//
// A punched whole block loses its pointer and is freed, as truncate frees
// the blocks past the end (punchBlocksLocked); the volume reuses it after
// the next commit, like every freed block. A block the range covers only in
// part gets zeros written into that part, through the dirty buffer. The
// range's last block counts as whole when the range reaches the end of the
// file, since the bytes past the end read as zeros anyway.

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
		if a != 0 {
			need++
		}
	}
	if err := fs.checkSpaceLocked(need); err != nil {
		return err
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
			clear(b[lo:hi])
		}
		return nil
	}
	a, err := fs.bmapLocked(in, lbn)
	if err != nil || a == 0 {
		return err
	}
	b, err := fs.dirtyBlockLocked(in, lbn, false)
	if err != nil {
		return err
	}
	clear(b[lo:hi])
	return nil
}

// zeroRangeLocked is ZERO_RANGE: [off, end) reads as zeros and is
// allocated, as fallocate mode 0 (or KEEP_SIZE) allocates it. The space
// check counts every block of the range: those the punch frees are not
// reusable before the next commit.
func (fs *FS) zeroRangeLocked(ino Ino, off, end uint64, keepSize bool) error {
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	in, err := fs.fileLocked(ino)
	if err != nil {
		return err
	}
	bs := uint64(fs.geo.bs)
	if err := fs.checkSpaceLocked(int64((end-1)/bs - off/bs + 1)); err != nil {
		return err
	}
	if err := fs.punchLocked(in, off, end); err != nil {
		return err
	}
	return fs.fallocateLocked(ino, off, end, keepSize)
}

// punchHoleLocked is PUNCH_HOLE (with KEEP_SIZE, which linux requires).
func (fs *FS) punchHoleLocked(ino Ino, off, end uint64) error {
	if err := fs.checkWritableLocked(); err != nil {
		return err
	}
	in, err := fs.fileLocked(ino)
	if err != nil {
		return err
	}
	return fs.punchLocked(in, off, end)
}
