package device

import "golang.org/x/sys/unix"

// CacheDropper is a Device whose bytes the host may hold in a page cache,
// and which can be told that a range will not be read again soon.
type CacheDropper interface {
	// DropCache asks the host to drop its cached pages of [off, off+n).
	// It is advice: pages being written are kept, and nothing changes for
	// the data. An error means only that the advice was not taken.
	DropCache(off, n int64) error
}

var _ CacheDropper = (*File)(nil)

// DropCache implements CacheDropper with posix_fadvise(POSIX_FADV_DONTNEED).
// A file opened with direct I/O has nothing cached to drop.
func (d *File) DropCache(off, n int64) error {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if d.f == nil || d.direct || n <= 0 {
		return nil
	}
	return unix.Fadvise(int(d.f.Fd()), off, n, unix.FADV_DONTNEED)
}

// DropCache gives d the advice of CacheDropper.DropCache if it takes it.
func DropCache(d Device, off, n int64) {
	if c, ok := d.(CacheDropper); ok {
		_ = c.DropCache(off, n)
	}
}
