package vlfs

// Compactable reports why the idle-time compactor may not run on this
// file system, or nil if it may: not on a closed or read-only one, nor on
// a volume whose placement is not eager (ErrNotSupported). Whoever runs
// the compactor (compactor.Background over CompactTarget) asks first.
func (fs *FS) Compactable() error {
	fs.lock()
	defer fs.unlock()
	return fs.compactableLocked()
}

// Logf writes to the file system's log (Options.Logf), if it has one: for
// the mount command's notes about the compactor.
func (fs *FS) Logf(format string, args ...any) { fs.logf(format, args...) }
