// Package zerofill writes zeros into the holes of an image file, so that
// the host file system has allocated every block before the image is used.
//
// A disk has no holes. An image file that has them (a sparse file, or
// fallocate's unwritten extents) makes the host allocate a block, or
// convert an extent, on the first write into each one, and the host's next
// fdatasync of the image then commits its journal as well: on this
// project's test host a 4 KiB pwrite+fdatasync at a random place of a
// 1 GiB image costs a median 240 us sparse, 274 us fallocated and 150 us
// written full of zeros. An eager-writing volume writes all over its image,
// so a sparse image stays slow for a long time. vlfs mkfs therefore fills
// an image file's holes by default (--sparse keeps them).
//
// It owns no state; every call works on the file it is given.
package zerofill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// chunk is the size of each zero write.
const chunk = 1 << 20

// Holes writes zeros over every hole of f's first size bytes (the file must
// be at least that long, or is extended), makes them durable with
// fdatasync and drops the file's pages from the host's page cache. Regions
// that already hold data are left as they are, so filling an image a second
// time costs only the look-up. A file system that cannot tell holes
// (SEEK_HOLE finds none, as on many FUSE and network file systems, yet
// fewer blocks are allocated than the file is long) gets zeros written over
// every chunk that reads as zeros instead; f must then be open for reading
// too. On a host that keeps written zeros unallocated (compression), or
// reports no allocation at all, that fallback reads and rewrites the whole
// file every time. progress, if not nil, is called with the bytes passed so far and
// size, last with (size, size). It returns how many bytes it wrote. Errors
// do not name the file; the caller does.
func Holes(f *os.File, size int64, progress func(done, total int64)) (int64, error) {
	written, err := fillHoles(f, size, progress)
	if err == nil && written == 0 && Allocated(f) < size {
		written, err = fillZeroChunks(f, size, progress)
	}
	if err != nil || written == 0 {
		return written, err
	}
	if progress != nil {
		progress(size, size)
	}
	fd := int(f.Fd())
	if err := unix.Fdatasync(fd); err != nil {
		return written, fmt.Errorf("zerofill: syncing: %w", err)
	}
	// The zeros are of no use in the page cache; the image's own reads
	// will bring back what they need.
	_ = unix.Fadvise(fd, 0, size, unix.FADV_DONTNEED)
	return written, nil
}

// fillHoles writes zeros over the holes SEEK_HOLE and SEEK_DATA report.
func fillHoles(f *os.File, size int64, progress func(done, total int64)) (int64, error) {
	fd := int(f.Fd())
	zero := make([]byte, chunk)
	var written int64
	for off := int64(0); off < size; {
		hole, err := unix.Seek(fd, off, unix.SEEK_HOLE)
		if errors.Is(err, unix.ENXIO) {
			hole = off // past the end of a short file: all the rest is hole
		} else if err != nil {
			return written, fmt.Errorf("zerofill: finding holes: %w", err)
		}
		if hole >= size {
			break
		}
		end, err := unix.Seek(fd, hole, unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO) || err == nil && end > size:
			end = size // no data after the hole
		case err != nil:
			return written, fmt.Errorf("zerofill: finding data: %w", err)
		case end <= hole:
			// A hole of no length: the loop would never advance.
			return written, fmt.Errorf("zerofill: SEEK_DATA from hole %d answered %d", hole, end)
		}
		for p := hole; p < end; {
			n := min(int64(chunk), end-p)
			if _, err := f.WriteAt(zero[:n], p); err != nil {
				return written, fmt.Errorf("zerofill: writing zeros at %d: %w", p, err)
			}
			p += n
			written += n
			if progress != nil {
				progress(p, size)
			}
		}
		off = end
	}
	return written, nil
}

// fillZeroChunks writes zeros over every chunk that reads as zeros: the
// fallback for a file system that reports no holes. Writing zeros where
// zeros are read changes no content.
func fillZeroChunks(f *os.File, size int64, progress func(done, total int64)) (int64, error) {
	zero := make([]byte, chunk)
	buf := make([]byte, chunk)
	var written int64
	for p := int64(0); p < size; {
		n := min(int64(chunk), size-p)
		if _, err := f.ReadAt(buf[:n], p); err != nil && !errors.Is(err, io.EOF) {
			return written, fmt.Errorf("zerofill: reading at %d: %w", p, err)
		}
		if bytes.Equal(buf[:n], zero[:n]) {
			if _, err := f.WriteAt(zero[:n], p); err != nil {
				return written, fmt.Errorf("zerofill: writing zeros at %d: %w", p, err)
			}
			written += n
		}
		p += n
		if progress != nil {
			progress(p, size)
		}
	}
	return written, nil
}

// Allocated is how many bytes of f the host file system has allocated
// (st_blocks), or -1 if it cannot say. A file system that compresses or
// deduplicates may keep a zero-filled file below its length.
func Allocated(f *os.File) int64 {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return -1
	}
	return st.Blocks * 512
}

// File opens path and fills the holes of its whole length (Holes).
func File(path string, progress func(done, total int64)) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, fmt.Errorf("zerofill: %w", err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("zerofill: %s is not a regular file", path)
	}
	var n int64
	if err == nil {
		n, err = Holes(f, st.Size(), progress)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
