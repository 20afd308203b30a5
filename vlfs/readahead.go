package vlfs

import "fmt"

// DeviceRange is a byte range of the device (the image file).
type DeviceRange struct {
	Off, Len int64
}

// DeviceRanges returns the device byte ranges that hold file bytes
// [off, off+length) of ino, in file order, with blocks that lie
// consecutively on the device merged into one range; holes and blocks
// buffered in memory are left out. At most maxRanges are returned.
//
// It is for read-ahead hints to the device's cache (posix_fadvise
// WILLNEED on the image): a file laid out in short runs scattered over the
// image otherwise reaches the device as a stream of small synchronous
// reads, one after another. The answer may be stale as soon as it is
// returned; a hint needs no more.
func (fs *FS) DeviceRanges(ino Ino, off, length int64, maxRanges int) ([]DeviceRange, error) {
	if off < 0 || length < 0 {
		return nil, fmt.Errorf("device ranges at %d+%d: %w", off, length, ErrInvalid)
	}
	fs.lock()
	defer fs.unlock()
	in, err := fs.fileLocked(ino)
	if err != nil {
		return nil, err
	}
	end := min(uint64(off)+uint64(length), in.d.Size)
	bs := uint64(fs.geo.bs)
	var out []DeviceRange
	for lbn := uint64(off) / bs; lbn*bs < end && len(out) <= maxRanges; lbn++ {
		if _, ok := in.data[lbn]; ok {
			continue
		}
		a, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return nil, err
		}
		if a == 0 {
			continue
		}
		at := int64(a * bs)
		if n := len(out); n > 0 && out[n-1].Off+out[n-1].Len == at {
			out[n-1].Len += int64(bs)
			continue
		}
		out = append(out, DeviceRange{Off: at, Len: int64(bs)})
	}
	if len(out) > maxRanges {
		out = out[:maxRanges]
	}
	return out, nil
}
