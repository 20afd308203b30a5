package diskfs

// Disk is what a Server exports as MOUNTPOINT/disk: a fixed-size array of
// bytes. Implementations serialise their own calls.
type Disk interface {
	// Size is the exported size in bytes; it never changes.
	Size() int64
	// ReadAt reads len(p) bytes at off; at the end of the disk it returns
	// fewer and io.EOF.
	ReadAt(p []byte, off int64) (int, error)
	// WriteAt writes p at off. A write that does not fit fails with an
	// error wrapping ErrOutOfRange and changes nothing.
	WriteAt(p []byte, off int64) (int, error)
	// Discard makes [off, off+n) read as zeros (the part beyond the end
	// is ignored), freeing the space of whole blocks where it can.
	Discard(off, n int64) error
	// Sync makes every write and discard so far durable.
	Sync() error
	// Stats reports the disk's counters.
	Stats() Stats
}
