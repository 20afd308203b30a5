package vlfs

import "github.com/vlfs/vlfs/vld"

// A write that covers part of a block not buffered yet needs the block's
// other bytes (read-modify-write), and so does dropping bytes inside a
// block (a truncate, a punch or zero range: the bytes outside stay). It used to read them under FS.mu
// (dirtyBlockLocked), so one such write held every other operation of the
// mount for a device read (issue 31). Now:
//
//   - bytes at or past the end of the file are not read: they are zeros
//     once the write extends the file (an append that starts at a block's
//     start and reaches the new end reads nothing; with the kernel's
//     writeback cache that is every append to a partial last page);
//   - other bytes are read by warmPartialLocked before the write, with
//     FS.mu released during the device read (FS.readGate held, so the
//     block is not reused meanwhile), and kept in FS.preread. The write,
//     back under FS.mu, takes that copy only if the block still has the
//     address and checksum it was read at; a block buffered, moved or
//     rewritten in place meanwhile is read as before.
//
// Only summed geometries (file-system version 4 on) pre-read: their
// checksum names the content, so a block rewritten in place at the same
// address (in-place placement) is told apart. Older images read under
// FS.mu as before.

// preRead is a partial write's old block read without FS.mu: block lbn
// of ino, read at addr with checksum sum.
type preRead struct {
	ino       Ino
	lbn, addr uint64
	sum       uint32
	buf       []byte
}

// needsOldBytes reports whether writing [off, end) into block lbn of a
// file of size bytes leaves bytes of the block inside the file that the
// write does not cover: only those must be read first.
func needsOldBytes(lbn, bs, off, end, size uint64) bool {
	start, stop := lbn*bs, (lbn+1)*bs
	lo, hi := max(off, start), min(end, stop)
	return (lo > start && start < size) || (hi < stop && hi < size)
}

// warmPartialLocked reads the blocks a write of [off, end) to ino will
// need the old bytes of (its first and last, if partial, not buffered and
// on disk) with FS.mu released during the read, and leaves them in
// FS.preread for dirtyBlockLocked. It reports nothing: a read that fails
// or does not verify is left to the write's own locked read, which
// reports it. FS.mu is held on entry and on return, but released between
// (a safe point: the caller looks the inode up again).
func (fs *FS) warmPartialLocked(ino Ino, off, end uint64) {
	fs.preread = fs.preread[:0]
	bs := uint64(fs.geo.bs)
	if !fs.geo.summed || end <= off || (off%bs == 0 && end%bs == 0) {
		return // whole blocks only (most writes under the writeback cache): nothing to keep
	}
	in, err := fs.fileLocked(ino)
	if err != nil {
		return
	}
	first, last := off/bs, (end-1)/bs
	var want []preRead
	for i, lbn := range [2]uint64{first, last} {
		if i == 1 && last == first {
			break
		}
		if !needsOldBytes(lbn, bs, off, end, in.d.Size) {
			continue
		}
		if _, ok := in.data[lbn]; ok {
			continue
		}
		a, sum, miss := fs.cachedBmapSumLocked(in, lbn)
		if miss || !isBlock(a) {
			continue // an indirect block not loaded (the write loads it), a hole, unwritten
		}
		want = append(want, preRead{ino: ino, lbn: lbn, addr: a, sum: sum, buf: make([]byte, bs)})
	}
	if len(want) == 0 {
		return
	}
	addrs, bufs := make([]vld.Addr, len(want)), make([][]byte, len(want))
	for i, p := range want {
		addrs[i], bufs[i] = p.addr, p.buf
	}
	if fs.readUnlocked(addrs, bufs) != nil {
		return
	}
	for _, p := range want {
		if fs.checkBlock(p.ino, p.lbn, p.addr, p.sum, p.buf) == nil {
			fs.preread = append(fs.preread, p)
			fs.stats.unlockedDataLoads.Add(1)
		}
	}
}

// warmRangeLocked loads, with FS.mu released during the reads, what
// dropping [off, end) of ino's bytes needs (a truncate to off, a punch or
// zero range): the indirect blocks on the range's paths, which the walk
// frees through and finds the kept blocks by (warmPathsLocked; those of
// the first maxDeferredLoads leaves' worth of blocks at most: the rest of
// a large range load under FS.mu as before, and a huge sparse range costs
// no scan here), and the bytes outside the range of its partial end
// blocks, which stay (warmPartialLocked). Bytes past the end of the file
// are not part of it.
func (fs *FS) warmRangeLocked(ino Ino, off, end uint64) {
	fs.preread = fs.preread[:0]
	if end, ok := fs.warmRangePathsLocked(ino, off, end); ok {
		fs.warmPartialLocked(ino, off, end)
	}
}

// warmRangePathsLocked loads, with FS.mu released during the reads, the
// indirect blocks on the paths of [off, end) of ino's bytes: a walk over
// the range (warmRangeLocked's, an allocating fallocate's look-up of its
// holes) then finds them in memory. It goes warmLeaves leaves at a time,
// each chunk's loads within deferLoadsLocked's budget (the nodes above
// the leaves count too), and stops after half the node cache's worth of
// leaves: a huge range neither scans nor loads without bound, and its
// rest loads under FS.mu as before. Nothing shrinks the caches until the
// caller's operation ends (unlockForLoad), so what it loads stays for
// the walk. It returns end cut at the file's size, and false if no byte
// of the range is in the file (no block there to walk to).
func (fs *FS) warmRangePathsLocked(ino Ino, off, end uint64) (uint64, bool) {
	bs := uint64(fs.geo.bs)
	in, err := fs.fileLocked(ino)
	if err != nil || off >= in.d.Size {
		return 0, false
	}
	end = min(end, in.d.Size)
	first, last := off/bs, (end-1)/bs
	chunk := warmLeaves * fs.geo.per
	for leaves := 0; leaves < max(fs.limits.nodes/2, warmLeaves); leaves += warmLeaves {
		hi := last
		if last-first >= chunk {
			hi = first + chunk - 1
		}
		fs.warmPathsLocked(ino, first, hi)
		if hi == last {
			break
		}
		first = hi + 1
	}
	return end, true
}

// warmLeaves is how many leaves' paths one deferLoadsLocked warms: with
// the up to three nodes above them, within its maxDeferredLoads.
const warmLeaves = 8

// takePreReadLocked copies into buf the pre-read of block lbn of ino if
// it was read at a with checksum sum, and reports whether it did.
func (fs *FS) takePreReadLocked(ino Ino, lbn, a uint64, sum uint32, buf []byte) bool {
	for i, p := range fs.preread {
		if p.ino == ino && p.lbn == lbn && p.addr == a && p.sum == sum {
			copy(buf, p.buf)
			fs.preread = append(fs.preread[:i], fs.preread[i+1:]...)
			return true
		}
	}
	return false
}
