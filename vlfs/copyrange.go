package vlfs

import "fmt"

// copyChunk is how much CopyRange copies under one hold of the lock: other
// operations run between chunks, and the chunk's buffer stays small.
const copyChunk = 1 << 20

// CopyRange copies up to n bytes at srcOff of the file src to dstOff of
// the file dst, as copy_file_range(2): it stops at the end of src and
// returns the bytes copied (0 at or past it). The bytes go through the
// dirty buffer, as a write's do, and are durable at the next commit. The
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

// copyChunk reads len(buf) bytes at srcOff of src and writes what it got at
// dstOff of dst, under one hold of the lock.
func (fs *FS) copyChunk(src Ino, srcOff int64, dst Ino, dstOff int64, buf []byte) (int64, error) {
	var got int
	err := fs.retryNoSpace(func() error {
		got = 0
		in, err := fs.fileLocked(src)
		if err != nil {
			return err
		}
		n, err := fs.readLocked(in, uint64(srcOff), buf)
		if err != nil || n == 0 {
			return err
		}
		if err := fs.writeLocked(dst, uint64(dstOff), buf[:n]); err != nil {
			return err
		}
		got = n
		return nil
	})
	return int64(got), err
}
