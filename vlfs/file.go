package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// fileLocked returns the live regular file ino.
func (fs *FS) fileLocked(ino Ino) (*inode, error) {
	in, err := fs.getLocked(ino)
	if err != nil {
		return nil, err
	}
	switch {
	case in.isDir():
		return nil, fmt.Errorf("inode %d: %w", ino, ErrIsDir)
	case !in.isReg():
		return nil, fmt.Errorf("inode %d is not a regular file: %w", ino, ErrInvalid)
	}
	return in, nil
}

// writableFileLocked returns the regular file ino, on a file system that
// may be written.
func (fs *FS) writableFileLocked(ino Ino) (*inode, error) {
	if err := fs.checkWritableLocked(); err != nil {
		return nil, err
	}
	return fs.fileLocked(ino)
}

// Read reads up to len(buf) bytes at off; it returns 0 at or past the end.
// It resolves the read under FS.mu (buffered data and holes are copied
// then) and reads the blocks on disk without it, holding only the read
// gate, so that a cache miss (milliseconds of device time on the real
// clock) holds up no other operation (issue 31).
func (fs *FS) Read(ino Ino, off int64, buf []byte) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read at %d: %w", off, ErrInvalid)
	}
	for try := 1; ; try++ {
		n, err := fs.readOnce(ino, off, buf)
		if errors.Is(err, ErrChecksum) && try < readTries {
			continue // rewritten in place while read? (checkBlock)
		}
		if errors.Is(err, ErrChecksum) {
			fs.reportChecksum(err)
		}
		return n, err
	}
}

// readTries bounds Read's attempts when a block fails its checksum: a
// block rewritten in place between the plan and the read (in-place
// placement) passes at the next; damage fails every time.
const readTries = 3

// readOnce is one attempt of Read; a checksum mismatch is returned
// unreported.
func (fs *FS) readOnce(ino Ino, off int64, buf []byte) (int, error) {
	fs.lock()
	var p readPlan
	var n int
	// An inode block or indirect block on the way that is on disk only is
	// read without FS.mu, then the read is planned again (meta_unlocked.go).
	err := fs.deferLoadsLocked(func() error {
		in, err := fs.fileLocked(ino)
		if err != nil {
			return err
		}
		p = readPlan{}
		n, err = fs.planReadLocked(in, uint64(off), buf, &p)
		return err
	})
	if err != nil || len(p.addrs) == 0 {
		fs.unlock()
		fs.stats.count(opRead, n)
		return n, err
	}
	fs.readGate.RLock()
	fs.unlock()
	err = fs.readPlanned(ino, &p)
	fs.readGate.RUnlock()
	if err != nil {
		return 0, err
	}
	fs.stats.count(opRead, n)
	return n, nil
}

// readLocked copies in's bytes at off into buf, up to the file size,
// reading the blocks on disk under FS.mu (for callers that hold it).
func (fs *FS) readLocked(in *inode, off uint64, buf []byte) (int, error) {
	var p readPlan
	n, err := fs.planReadLocked(in, off, buf, &p)
	if err != nil || len(p.addrs) == 0 {
		return n, err
	}
	if err := fs.readPlanned(in.ino, &p); err != nil {
		if errors.Is(err, ErrChecksum) {
			fs.reportChecksum(err) // under FS.mu: nothing rewrites it meanwhile
		}
		return 0, err
	}
	return n, nil
}

// readPlanned reads a plan's blocks from the volume and copies out the
// partial ones; it needs FS.mu or FS.readGate held (readPlan says why).
func (fs *FS) readPlanned(ino Ino, p *readPlan) error {
	if err := fs.vol.ReadBlocks(p.addrs, p.bufs); err != nil {
		return fmt.Errorf("inode %d: reading data: %w", ino, err)
	}
	for i, c := range p.checks {
		if err := fs.checkBlock(ino, c.lbn, p.addrs[i], c.sum, p.bufs[i]); err != nil {
			return err // the caller reports it (Read after its retries)
		}
	}
	for _, pt := range p.parts {
		copy(pt.dst, pt.src)
	}
	return nil
}

// readPlan is a read resolved under FS.mu: the blocks left to read from
// the volume, each into the caller's buffer (a whole block) or into a
// scratch block whose part readPlanned copies out (a partial one). The
// addresses stay valid without FS.mu while the reader holds FS.readGate:
// a freed block is handed back to the volume only after the gate is
// drained (releaseFreesLocked).
type readPlan struct {
	addrs  []vld.Addr
	bufs   [][]byte
	checks []sumCheck // each block's place and checksum (summed geometry; else nil)
	parts  []readPart
}

// add plans the read of block lbn at a (checksum sum) into buf.
func (p *readPlan) add(g geometry, lbn uint64, a vld.Addr, sum uint32, buf []byte) {
	p.addrs, p.bufs = append(p.addrs, a), append(p.bufs, buf)
	if g.summed {
		p.checks = append(p.checks, sumCheck{lbn, sum})
	}
}

// readPart is the part of a scratch block a partial read wants.
type readPart struct{ src, dst []byte }

// planReadLocked copies what is buffered or a hole into buf and plans the
// rest; it returns the bytes the read returns (up to the file size).
func (fs *FS) planReadLocked(in *inode, off uint64, buf []byte, p *readPlan) (int, error) {
	if off >= in.d.Size {
		return 0, nil
	}
	n := int(min(uint64(len(buf)), in.d.Size-off))
	bs := uint64(fs.geo.bs)
	for done := 0; done < n; {
		pos := off + uint64(done)
		lbn, within := pos/bs, int(pos%bs)
		chunk := min(n-done, fs.geo.bs-within)
		dst := buf[done : done+chunk]
		done += chunk
		if b, ok := in.data[lbn]; ok {
			if b == nil {
				clear(dst)
			} else {
				copy(dst, b[within:])
			}
			continue
		}
		a, sum, err := fs.bmapSumLocked(in, lbn)
		if err != nil {
			return 0, err
		}
		switch {
		case !isBlock(a): // a hole, or unwritten
			clear(dst)
		case chunk == fs.geo.bs:
			p.add(fs.geo, lbn, a, sum, dst)
		default:
			tmp := make([]byte, fs.geo.bs)
			p.add(fs.geo, lbn, a, sum, tmp)
			p.parts = append(p.parts, readPart{src: tmp[within : within+chunk], dst: dst})
		}
	}
	return n, nil
}

// readDataLocked reads block lbn of in, at a with checksum sum, into buf
// under FS.mu (a partial write's read-modify-write: a block that fails its
// checksum is not written back under a new one).
func (fs *FS) readDataLocked(in *inode, lbn uint64, a uint64, sum uint32, buf []byte) error {
	if err := fs.vol.ReadBlock(a, buf); err != nil {
		return fmt.Errorf("inode %d: reading block at %d: %w", in.ino, a, err)
	}
	return fs.verifyBlock(in.ino, lbn, a, sum, buf)
}

// Write writes data at off, buffering it until the next write-out.
func (fs *FS) Write(ino Ino, off int64, data []byte) (int, error) {
	fs.stats.count(opWrite, len(data))
	if off < 0 {
		return 0, fmt.Errorf("write at %d: %w", off, ErrInvalid)
	}
	if uint64(off) > fs.geo.maxFileSize() || uint64(len(data)) > fs.geo.maxFileSize()-uint64(off) {
		return 0, fmt.Errorf("write of %d bytes at %d: %w", len(data), off, ErrFileTooBig)
	}
	var over bool
	var thru throughBlocks
	err := fs.retryNoSpace(func() error {
		if len(data) > 0 {
			bs := uint64(fs.geo.bs)
			fs.warmPathsLocked(ino, uint64(off)/bs, (uint64(off)+uint64(len(data))-1)/bs)
			fs.warmPartialLocked(ino, uint64(off), uint64(off)+uint64(len(data)))
		}
		var err error
		thru, err = fs.writeThroughLocked(ino, uint64(off), data)
		fs.preread = fs.preread[:0]
		over = fs.dirtyBytes-thru.bytes(fs.geo.bs) > fs.opts.DirtyLimitBytes
		return err
	})
	if err != nil {
		return 0, err
	}
	if thru.a < thru.b {
		// The data is buffered already, so an error here is not this
		// write's: the blocks stay buffered and the commit reports it.
		if err := fs.writeThrough(thru.in, thru.a, thru.b); err != nil {
			fs.logf("vlfs: writing through %d blocks of inode %d: %v", thru.b-thru.a, thru.in.ino, err)
		}
	}
	if over {
		// Past the dirty limit: write half of it out, without FS.mu
		// during the I/O.
		if err := fs.writeOutData(fs.opts.DirtyLimitBytes/2, false); err != nil {
			fs.logf("vlfs: writing out buffered data: %v", err)
		}
	}
	return len(data), nil
}

// throughBlocks are the blocks [a, b) of in that a write buffered to be
// written through (writethrough.go) once FS.mu is released.
type throughBlocks struct {
	in   *inode
	a, b uint64
}

func (t throughBlocks) bytes(bs int) int64 { return int64(t.b-t.a) * int64(bs) }

// writeLocked writes data at off, all of it buffered.
func (fs *FS) writeLocked(ino Ino, off uint64, data []byte) error {
	_, err := fs.writeThroughLocked(ino, off, data)
	return err
}

// writeThroughLocked writes data at off, buffered; the whole blocks it
// returns are for the caller to write through without FS.mu.
func (fs *FS) writeThroughLocked(ino Ino, off uint64, data []byte) (throughBlocks, error) {
	in, err := fs.writableFileLocked(ino)
	if err != nil || len(data) == 0 {
		return throughBlocks{}, err
	}
	bs := uint64(fs.geo.bs)
	end := off + uint64(len(data))
	first, last := off/bs, (end-1)/bs
	if err := fs.checkSpaceLocked(fs.newDirtyCountLocked(in, first, last)); err != nil {
		return throughBlocks{}, err
	}
	// The partial blocks first: buffering one may read it, and a failed
	// read must leave no block past the end of the file buffered.
	ta, tb := fs.throughRange(in, off, end)
	var slab []byte // the through blocks' buffers, one allocation
	for _, through := range []bool{false, true} {
		if through && ta < tb {
			slab = make([]byte, (tb-ta)*bs)
		}
		for lbn := first; lbn <= last; lbn++ {
			if (lbn >= ta && lbn < tb) != through {
				continue
			}
			var fresh []byte
			if through {
				fresh = slab[(lbn-ta)*bs : (lbn-ta+1)*bs : (lbn-ta+1)*bs]
			}
			lo, hi := max(off, lbn*bs), min(end, (lbn+1)*bs)
			// Bytes past the end of the file are zeros: a write that
			// covers the rest reads nothing (write_partial.go).
			buf, err := fs.dirtyBlockLocked(in, lbn, !needsOldBytes(lbn, bs, off, end, in.d.Size), fresh)
			if err != nil {
				return throughBlocks{}, err
			}
			copy(buf[lo-lbn*bs:], data[lo-off:hi-off])
		}
	}
	changed := end > in.d.Size
	if changed {
		in.d.Size = end
	}
	if !fs.kernelTimes {
		t := now()
		in.d.Mtime, in.d.Ctime = t, t
		changed = true
	}
	if changed {
		fs.touchLocked(in)
	} else {
		fs.markDirtyLocked(in) // the data and its tree only: the record is as it was
	}
	return throughBlocks{in, ta, tb}, fs.limitDirtyLocked()
}

// newDirtyCountLocked is how many of blocks first..last are not buffered yet.
func (fs *FS) newDirtyCountLocked(in *inode, first, last uint64) int64 {
	n := int64(0)
	for lbn := first; lbn <= last; lbn++ {
		if _, ok := in.data[lbn]; !ok {
			if fs.unwritten > 0 {
				// An unwritten block's space is kept already.
				if a, err := fs.bmapLocked(in, lbn); err == nil && a == ondisk.UnwrittenAddr {
					continue
				}
			}
			n++
		}
	}
	return n
}

// dirtyBlockLocked returns the buffer of logical block lbn, creating it
// from the block on disk (unless the caller overwrites all of it) or zeros,
// in fresh if it is not nil (a zeroed block-sized buffer).
func (fs *FS) dirtyBlockLocked(in *inode, lbn uint64, whole bool, fresh []byte) ([]byte, error) {
	b, ok := in.data[lbn]
	if ok && b != nil {
		return fs.ownBufLocked(in, lbn, b), nil
	}
	buf := fresh
	if buf == nil {
		buf = make([]byte, fs.geo.bs)
	}
	if !ok {
		a, sum, err := fs.bmapSumLocked(in, lbn)
		if err != nil {
			return nil, err
		}
		if a == 0 {
			// The count is in the record: mark it changed. Under kernel
			// times a write inside the size changes nothing else of the
			// record, and the data's write-out below an indirect block
			// (a numbered node's map entry, or a pointer rewritten in
			// place) may change nothing of it either, so the commit
			// would leave the old count on disk.
			in.d.Blocks++
			in.changed()
		} else if a == ondisk.UnwrittenAddr {
			// The reservation becomes this buffer's: its space moves from
			// fs.unwritten to fs.reserved (below), and the pointer is a
			// hole until the block lands, so that nothing counts it twice
			// or frees it twice (unwritten.go). The buffer reads as zeros.
			if _, err := fs.pointLocked(in, lbn, 0, 0); err != nil {
				return nil, err
			}
			fs.unwritten--
		} else if !whole && !fs.takePreReadLocked(in.ino, lbn, a, sum, buf) {
			if err := fs.readDataLocked(in, lbn, a, sum, buf); err != nil {
				return nil, err
			}
		}
		if in.data == nil {
			in.data = map[uint64][]byte{}
		}
		fs.reserved++
	}
	in.data[lbn] = buf
	fs.dirtyBytes += int64(fs.geo.bs)
	fs.markDirtyLocked(in)
	return buf, nil
}

// limitDirtyLocked writes buffered data out (without committing) when it
// exceeds the dirty limit, so memory stays bounded. Where Write can write
// it out without FS.mu (writeOutData) it does so at the limit, and this
// is the backstop, at twice the limit, for writers faster than that.
func (fs *FS) limitDirtyLocked() error {
	limit := fs.opts.DirtyLimitBytes
	if fs.unlockedWriteOut() {
		limit *= 2
	}
	if fs.dirtyBytes <= limit {
		return nil
	}
	return fs.writeDataLocked(fs.sortedDirtyLocked(), true)
}

// setSizeLocked truncates or extends a regular file.
func (fs *FS) setSizeLocked(in *inode, size uint64) error {
	switch {
	case in.isDir():
		return fmt.Errorf("truncate of directory %d: %w", in.ino, ErrIsDir)
	case !in.isReg():
		return fmt.Errorf("truncate of inode %d: %w", in.ino, ErrInvalid)
	case size > fs.geo.maxFileSize():
		return fmt.Errorf("truncate to %d: %w", size, ErrFileTooBig)
	}
	bs := uint64(fs.geo.bs)
	if size < in.d.Size {
		if err := fs.truncateBlocksLocked(in, (size+bs-1)/bs); err != nil {
			return err
		}
		if err := fs.zeroTailLocked(in, size); err != nil {
			return err
		}
	}
	in.d.Size = size
	t := now()
	in.d.Mtime, in.d.Ctime = t, t
	fs.touchLocked(in)
	return nil
}

// zeroTailLocked clears the bytes past size in size's last block, so that
// a later extension reads zeros there.
func (fs *FS) zeroTailLocked(in *inode, size uint64) error {
	bs := uint64(fs.geo.bs)
	if size%bs == 0 {
		return nil
	}
	return fs.zeroPartLocked(in, size/bs, size%bs, bs)
}

// Fallocate reserves blocks for [off, off+length). Mode 0 grows the file if
// needed. FallocKeepSize leaves the size alone: blocks are allocated only
// inside the file (blocks past the end are not part of the format), and for
// the part past the end the call only checks that the space is free now.
// FallocPunchHole|FallocKeepSize frees the range's blocks and
// FallocZeroRange (with or without FallocKeepSize) zeroes and allocates it
// (punch.go). Other modes are ErrNotSupported.
func (fs *FS) Fallocate(ino Ino, mode uint32, off, length int64) error {
	fs.stats.count(opFallocate, int(max(length, 0)))
	if off < 0 || length <= 0 { // before the mode, as linux checks
		return fmt.Errorf("fallocate [%d, +%d): %w", off, length, ErrInvalid)
	}
	var op func(ino Ino, off, end uint64) error
	switch mode {
	case 0, FallocKeepSize:
		op = func(ino Ino, off, end uint64) error { return fs.fallocateLocked(ino, off, end, mode == FallocKeepSize) }
	case FallocPunchHole | FallocKeepSize:
		op = fs.punchHoleLocked
	case FallocZeroRange, FallocZeroRange | FallocKeepSize:
		op = func(ino Ino, off, end uint64) error {
			return fs.zeroRangeLocked(ino, off, end, mode&FallocKeepSize != 0)
		}
	default:
		return fmt.Errorf("fallocate mode %#x: %w", mode, ErrNotSupported)
	}
	if uint64(off) > fs.geo.maxFileSize() || uint64(length) > fs.geo.maxFileSize()-uint64(off) {
		return fmt.Errorf("fallocate [%d, +%d): %w", off, length, ErrFileTooBig)
	}
	return fs.retryNoSpace(func() error {
		if mode&(FallocPunchHole|FallocZeroRange) != 0 {
			// What it reads is this call's only (run before retryNoSpace unlocks).
			fs.warmRangeLocked(ino, uint64(off), uint64(off+length))
			defer func() { fs.preread = fs.preread[:0] }()
		} else {
			fs.warmRangePathsLocked(ino, uint64(off), uint64(off+length)) // the holes' look-up
		}
		return op(ino, uint64(off), uint64(off+length))
	})
}

func (fs *FS) fallocateLocked(ino Ino, off, end uint64, keepSize bool) error {
	in, err := fs.writableFileLocked(ino)
	if err != nil {
		return err
	}
	bs := uint64(fs.geo.bs)
	if keepSize && end > in.d.Size {
		past := (end - max(off, in.d.Size) + bs - 1) / bs
		if off >= in.d.Size {
			return fs.checkSpaceLocked(int64(past))
		}
		if err := fs.checkSpaceLocked(int64(past + (in.d.Size-off+bs-1)/bs)); err != nil {
			return err
		}
		end = in.d.Size
	}
	var holes []uint64
	for lbn := off / bs; lbn <= (end-1)/bs; lbn++ {
		if _, ok := in.data[lbn]; ok {
			continue
		}
		a, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return err
		}
		if a == 0 {
			holes = append(holes, lbn)
		}
	}
	if err := fs.checkSpaceLocked(int64(len(holes))); err != nil {
		return err
	}
	if len(holes) > 0 && in.data == nil {
		in.data = map[uint64][]byte{}
	}
	for _, lbn := range holes {
		in.data[lbn] = nil
		in.d.Blocks++
		fs.reserved++
	}
	t := now()
	if end > in.d.Size {
		in.d.Size = end
		in.d.Mtime = t
	}
	in.d.Ctime = t
	fs.touchLocked(in)
	return nil
}

// SetKernelTimes says whether the kernel keeps regular files' mtime and
// ctime across writes, as FUSE's writeback cache does: it stamps its own
// inode at each write(2) and sends the times with a SETATTR before the
// FSYNC of the file (fuse_fsync's sync_inode_metadata) and when it writes
// the inode back, and it never reads a cached file's times from the
// server. Write then leaves them alone, so that an overwrite changes no
// inode record: under the node map its commit is the data, its leaf and a
// log entry, where a server-side stamp added the inode block (every
// write's time differs, and the kernel's SETATTR overwrites it anyway).
// The FUSE server turns it on with the writeback cache.
func (fs *FS) SetKernelTimes(on bool) {
	fs.lock()
	defer fs.unlock()
	fs.kernelTimes = on
}
