package vlfs

import "fmt"

// DeviceRange is a byte range of the device (the image file).
type DeviceRange struct {
	Off, Len int64
}

// DeviceRanges returns the device byte ranges that hold file bytes
// [off, off+length) of ino, in file order, with blocks that lie
// consecutively on the device merged into one range; holes and blocks
// buffered in memory are left out. At most maxRanges are returned, and
// covered is the file offset up to which they describe the file: off+length
// unless maxRanges cut the answer short, so that a caller can hint the rest
// later instead of skipping it.
//
// It is for read-ahead hints to the device's cache (posix_fadvise
// WILLNEED on the image): a file laid out in short runs scattered over the
// image otherwise reaches the device as a stream of small synchronous
// reads, one after another. The answer may be stale as soon as it is
// returned; a hint needs no more.
func (fs *FS) DeviceRanges(ino Ino, off, length int64, maxRanges int) (rs []DeviceRange, covered int64, err error) {
	if off < 0 || length < 0 || maxRanges < 1 {
		return nil, 0, fmt.Errorf("device ranges at %d+%d, at most %d: %w", off, length, maxRanges, ErrInvalid)
	}
	fs.lock()
	defer fs.unlock()
	in, err := fs.fileLocked(ino)
	if err != nil {
		return nil, 0, err
	}
	end := min(uint64(off)+uint64(length), in.d.Size)
	bs := uint64(fs.geo.bs)
	for lbn := uint64(off) / bs; lbn*bs < end; lbn++ {
		if _, ok := in.data[lbn]; ok {
			continue
		}
		a, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return nil, 0, err
		}
		if !isBlock(a) {
			continue
		}
		at := int64(a * bs)
		if n := len(rs); n > 0 && rs[n-1].Off+rs[n-1].Len == at {
			rs[n-1].Len += int64(bs)
			continue
		}
		if len(rs) == maxRanges {
			return rs, int64(lbn * bs), nil
		}
		rs = append(rs, DeviceRange{Off: at, Len: int64(bs)})
	}
	// Past the file's end there is nothing to hint: the answer covers the
	// whole request, so that a reader near the end is not sent back for
	// more at every READ.
	return rs, off + length, nil
}
