package vlfs

import "fmt"

// copyChunk is how much CopyRange copies under one hold of the lock: other
// operations run between chunks, and the chunk's buffer stays small.
const copyChunk = 1 << 20

// CopyRange copies up to n bytes at srcOff of the file src to dstOff of
// the file dst, as copy_file_range(2): it stops at the end of src and
// returns the bytes copied (0 at or past it). The bytes go through the
// dirty buffer, as a write's do, and are durable at the next commit; the
// source's holes stay holes where they can (copyChunk). The
// copy is made in chunks of copyChunk, each one step as a write is: an
// error after the first chunk returns what was copied, and a crash leaves
// a prefix of the copy (a whole number of chunks). Overlapping ranges of
// one file are refused, as the kernel refuses them (after cutting the
// source range at the end of the file).
func (fs *FS) CopyRange(src Ino, srcOff int64, dst Ino, dstOff int64, n int64) (done int64, err error) {
	defer func() { fs.stats.count(opCopyRange, int(done)) }()
	if srcOff < 0 || dstOff < 0 || n < 0 {
		return 0, fmt.Errorf("copy [%d, +%d) to %d: %w", srcOff, n, dstOff, ErrInvalid)
	}
	if uint64(dstOff) > fs.geo.maxFileSize() || uint64(n) > fs.geo.maxFileSize()-uint64(dstOff) {
		return 0, fmt.Errorf("copy of %d bytes to %d: %w", n, dstOff, ErrFileTooBig)
	}
	if src == dst {
		if err := fs.checkOverlap(src, srcOff, dstOff, n); err != nil {
			return 0, err
		}
	}
	buf := make([]byte, min(n, copyChunk))
	for done < n {
		want := min(n-done, copyChunk)
		got, err := fs.copyChunk(src, srcOff+done, dst, dstOff+done, buf[:want])
		done += got
		if err != nil {
			if done > 0 {
				return done, nil
			}
			return 0, err
		}
		if got < want {
			break // the end of src
		}
	}
	return done, nil
}

// checkOverlap refuses a copy within one file whose ranges overlap once
// the source range is cut at the end of the file, as Linux does.
func (fs *FS) checkOverlap(ino Ino, srcOff, dstOff, n int64) error {
	fs.lock()
	in, err := fs.fileLocked(ino)
	var size uint64
	if err == nil {
		size = in.d.Size
	}
	fs.unlock()
	if err != nil {
		return err
	}
	if uint64(srcOff) >= size {
		return nil
	}
	n = min(n, int64(size-uint64(srcOff)))
	// Both sums stay below 2^64: every operand is below 2^63.
	if uint64(srcOff) < uint64(dstOff)+uint64(n) && uint64(dstOff) < uint64(srcOff)+uint64(n) {
		return fmt.Errorf("copy [%d, +%d) to %d of the same file: the ranges overlap: %w", srcOff, n, dstOff, ErrInvalid)
	}
	return nil
}

// copySegment is a byte range [off, end) of a copy's source: data to
// copy, or whole blocks that are holes.
type copySegment struct {
	off, end uint64
	hole     bool
}

// copyChunk copies len(buf) bytes at srcOff of src to dstOff of dst (fewer
// at the end of src) under one hold of the lock, and returns the bytes
// copied. Where the two offsets share their place in a block, whole blocks
// that are holes in the source become holes in the destination (its
// blocks there freed, as a punch frees them) instead of zeros written, so
// a sparse file copies sparse and needs no space for its holes.
func (fs *FS) copyChunk(src Ino, srcOff int64, dst Ino, dstOff int64, buf []byte) (int64, error) {
	var got int64
	err := fs.retryNoSpace(func() error {
		got = 0
		in, err := fs.fileLocked(src)
		if err != nil {
			return err
		}
		end := min(uint64(srcOff)+uint64(len(buf)), in.d.Size)
		if uint64(srcOff) >= end {
			return nil
		}
		segs, err := fs.copySegmentsLocked(in, uint64(srcOff), end, uint64(dstOff))
		if err != nil {
			return err
		}
		for _, seg := range segs {
			d := uint64(dstOff) + seg.off - uint64(srcOff)
			if seg.hole {
				err = fs.copyHoleLocked(dst, d, d+seg.end-seg.off)
			} else {
				err = fs.copyDataLocked(in, seg, dst, d, buf)
			}
			if err != nil {
				return err
			}
			got = int64(seg.end - uint64(srcOff))
		}
		return nil
	})
	return got, err
}

// copySegmentsLocked splits [off, end) of in into data and runs of whole
// hole blocks; all data when dstOff sits elsewhere in its block.
func (fs *FS) copySegmentsLocked(in *inode, off, end, dstOff uint64) ([]copySegment, error) {
	bs := uint64(fs.geo.bs)
	if off%bs != dstOff%bs {
		return []copySegment{{off, end, false}}, nil
	}
	var segs []copySegment
	add := func(lo, hi uint64, hole bool) {
		if lo >= hi {
			return
		}
		if n := len(segs); n > 0 && segs[n-1].hole == hole && segs[n-1].end == lo {
			segs[n-1].end = hi
			return
		}
		segs = append(segs, copySegment{lo, hi, hole})
	}
	first, last := (off+bs-1)/bs, end/bs // the whole blocks, if first < last
	head := min(first*bs, end)           // the partial block before them
	add(off, head, false)
	for lbn := first; lbn < last; lbn++ {
		hole := false
		if _, buffered := in.data[lbn]; !buffered {
			a, err := fs.bmapLocked(in, lbn)
			if err != nil {
				return nil, err
			}
			hole = !isBlock(a) // unwritten reads as zeros too
		}
		add(lbn*bs, (lbn+1)*bs, hole)
	}
	add(max(last*bs, head), end, false) // and after them
	return segs, nil
}

// copyDataLocked copies the bytes of seg (at most len(buf) of them) from
// in to d of dst, as a write.
func (fs *FS) copyDataLocked(in *inode, seg copySegment, dst Ino, d uint64, buf []byte) error {
	b := buf[:seg.end-seg.off]
	n, err := fs.readLocked(in, seg.off, b)
	if err != nil {
		return err
	}
	return fs.writeLocked(dst, d, b[:n])
}

// copyHoleLocked makes the block-aligned range [d, e) of dst a hole: its
// blocks there are freed, and the file grows to e if it was shorter.
func (fs *FS) copyHoleLocked(dst Ino, d, e uint64) error {
	out, err := fs.writableFileLocked(dst)
	if err != nil {
		return err
	}
	bs := uint64(fs.geo.bs)
	if err := fs.punchBlocksLocked(out, d/bs, e/bs); err != nil {
		return err
	}
	out.d.Size = max(out.d.Size, e)
	t := now()
	out.d.Mtime, out.d.Ctime = t, t
	fs.touchLocked(out)
	return nil
}
