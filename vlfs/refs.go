package vlfs

// Open counts an open handle on ino.
func (fs *FS) Open(ino Ino) error {
	fs.stats.count(opOpen, 0)
	fs.lock()
	defer fs.unlock()
	if _, err := fs.getLocked(ino); err != nil {
		return err
	}
	fs.opens[ino]++
	return nil
}

// Release drops an open handle; an unlinked inode with no reference left
// is freed.
func (fs *FS) Release(ino Ino) error {
	fs.stats.count(opRelease, 0)
	if err := fs.lockChange(); err != nil {
		fs.logf("vlfs: release %d: %v", ino, err) // the handle goes whatever: freeing is what makes room
	}
	defer fs.unlock()
	if fs.opens[ino] <= 1 {
		delete(fs.opens, ino)
	} else {
		fs.opens[ino]--
	}
	return fs.maybeReclaimLocked(ino)
}

// Forget drops n lookups of ino (FUSE semantics).
func (fs *FS) Forget(ino Ino, n uint64) {
	fs.stats.count(opForget, 0)
	if err := fs.lockChange(); err != nil {
		fs.logf("vlfs: forget %d: %v", ino, err) // freeing the inode is what makes room
	}
	defer fs.unlock()
	if fs.lookups[ino] <= n {
		delete(fs.lookups, ino)
	} else {
		fs.lookups[ino] -= n
	}
	if err := fs.maybeReclaimLocked(ino); err != nil {
		fs.logf("vlfs: forget %d: %v", ino, err)
	}
}

// maybeReclaimLocked frees ino if it is an orphan nobody references.
func (fs *FS) maybeReclaimLocked(ino Ino) error {
	if !fs.orphans[ino] || fs.lookups[ino] > 0 || fs.opens[ino] > 0 || fs.readOnly || fs.closed {
		return nil
	}
	return fs.reclaimLocked(ino)
}
