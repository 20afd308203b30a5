package device

import "unsafe"

// DirectAlign is the alignment O_DIRECT transfers use here, for buffer
// addresses, offsets and lengths alike. 4096 satisfies devices with 512-byte
// and 4 KiB logical sectors and every common file system.
const DirectAlign = 4096

// AlignedBuffer returns a zeroed n-byte slice whose first byte is
// DirectAlign-aligned. Callers that pass such buffers, at aligned offsets and
// lengths, to a Direct File avoid the bounce copy.
func AlignedBuffer(n int) []byte {
	b := make([]byte, n+DirectAlign)
	skip := (DirectAlign - int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))%DirectAlign)) % DirectAlign
	return b[skip : skip+n : skip+n]
}

// aligned reports whether p, off and len(p) all suit O_DIRECT as they are.
func aligned(p []byte, off int64) bool {
	if off%DirectAlign != 0 || len(p)%DirectAlign != 0 {
		return false
	}
	return len(p) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(p)))%DirectAlign == 0
}

// cover is the smallest aligned range holding [off, off+n). The device size is
// a multiple of DirectAlign (OpenFile checks it), so the range stays inside.
func cover(off int64, n int) (lo, hi int64) {
	lo = off - off%DirectAlign
	hi = off + int64(n)
	if r := hi % DirectAlign; r != 0 {
		hi += DirectAlign - r
	}
	return lo, hi
}

// directReadLocked reads through an aligned bounce buffer unless p is already
// aligned in address, offset and length. d.mu must be read-held.
func (d *File) directReadLocked(p []byte, off int64) (int, error) {
	if aligned(p, off) {
		return d.f.ReadAt(p, off)
	}
	lo, hi := cover(off, len(p))
	buf := AlignedBuffer(int(hi - lo))
	if _, err := d.f.ReadAt(buf, lo); err != nil {
		return 0, err
	}
	return copy(p, buf[off-lo:]), nil
}

// directWriteLocked writes p with O_DIRECT. A misaligned buffer at an aligned
// offset and length is copied to an aligned one; a misaligned offset or length
// needs a read-modify-write of the covering sectors. Such a write holds rmwMu
// exclusively and aligned writes hold it shared, so a read-modify-write never
// puts back stale bytes over another write that landed between its read and
// its write. d.mu must be read-held.
func (d *File) directWriteLocked(p []byte, off int64) (int, error) {
	if off%DirectAlign == 0 && len(p)%DirectAlign == 0 {
		d.rmwMu.RLock()
		defer d.rmwMu.RUnlock()
		if aligned(p, off) {
			return d.f.WriteAt(p, off)
		}
		buf := AlignedBuffer(len(p))
		copy(buf, p)
		return d.f.WriteAt(buf, off)
	}
	d.rmwMu.Lock()
	defer d.rmwMu.Unlock()
	lo, hi := cover(off, len(p))
	buf := AlignedBuffer(int(hi - lo))
	if _, err := d.f.ReadAt(buf, lo); err != nil {
		return 0, err
	}
	copy(buf[off-lo:], p)
	if _, err := d.f.WriteAt(buf, lo); err != nil {
		return 0, err
	}
	return len(p), nil
}
