package vlfs

import (
	"errors"
	"fmt"
)

// errShort says an operation found too little space but a commit may help:
// it releases freed blocks and replaces the (pessimistic) estimate of the
// metadata to write by the truth; retryNoSpace commits and tries again.
var errShort = errors.New("vlfs: short of space until the next commit")

// metaEstimateLocked bounds the metadata blocks the next write-out needs:
// an inode block and a few indirect blocks per dirty inode, the dirty
// directory blocks, the indirect blocks of the buffered data, and slack.
func (fs *FS) metaEstimateLocked() int64 {
	return 2*int64(len(fs.dirty)) + fs.dirtyMeta + fs.reserved/int64(fs.geo.per) + 16 + fs.rec.holders
}

// checkSpaceLocked fails unless the volume can take n more data blocks on
// top of everything already buffered and every unwritten reservation.
// Metadata may always dip into the volume's reserve, so deletes never
// fail for space.
func (fs *FS) checkSpaceLocked(n int64) error {
	need := fs.reserved + fs.unwritten + n + fs.metaEstimateLocked()
	free := fs.vol.FreeBlocks()
	if free >= need {
		return nil
	}
	if len(fs.pendingFree) > 0 || len(fs.dirty) > 0 {
		return errShort // a commit frees blocks and makes the estimate exact
	}
	return fmt.Errorf("need %d blocks, %d free: %w", need, free, ErrNoSpace)
}

// commitSlack covers what the volume adds to a commit beyond the blocks
// metaEstimateLocked counts (inode-map pieces, log records) and what one
// operation may add between two checks of outgrowsLocked.
const commitSlack = 64

// outgrowsLocked reports whether the next commit might no longer fit in
// the blocks free to it (the reserve included: metadata may use it). Only
// a nearly full disk with many changes pending (a bulk delete) gets there.
func (fs *FS) outgrowsLocked() bool {
	if fs.readOnly || fs.closed || fs.failed != nil || fs.dirtySince.IsZero() {
		return false
	}
	need := fs.reserved + fs.metaEstimateLocked() + commitSlack
	return need > fs.vol.MetaFreeBlocks()
}

// lockChange takes FS.mu for an operation that changes the file system.
// If the next commit might no longer fit in the free blocks, it commits
// first, so that what would have been one commit too big to ever fit
// (every inode and directory block a bulk delete touched, issue 30) is
// split at operation boundaries into commits that fit: each is a
// consistent state, and the blocks each frees are usable by the ones
// after it. FS.mu is held on return, even with an error: the commit
// failed and the state is still too big, and the caller must not add to
// it (deletes then fail with ErrNoSpace rather than being acknowledged
// with no commit able to hold them).
func (fs *FS) lockChange() error {
	fs.mu.Lock()
	if !fs.outgrowsLocked() {
		return nil
	}
	fs.mu.Unlock()
	fs.stats.roomCommits.Add(1)
	err := fs.syncAll()
	fs.mu.Lock()
	if err != nil && fs.outgrowsLocked() {
		return fmt.Errorf("committing to make room for more changes: %w: %w", err, ErrNoSpace)
	}
	return nil
}

// retryNoSpace runs op under FS.mu; if op was short of space while freed
// blocks await a commit, it commits (making them reusable) and runs op
// once more.
func (fs *FS) retryNoSpace(op func() error) error {
	err := fs.lockChange()
	if err == nil {
		err = op()
	}
	fs.unlock()
	if !errors.Is(err, errShort) {
		return err
	}
	fs.mu.Lock()
	fs.rec.full = true // the exact state, with what records stood for written
	fs.mu.Unlock()
	if cerr := fs.syncAll(); cerr != nil {
		return fmt.Errorf("committing to reclaim space: %w: %w", cerr, ErrNoSpace)
	}
	if err = fs.lockChange(); err == nil {
		err = op()
	}
	fs.unlock()
	if errors.Is(err, errShort) {
		return fmt.Errorf("after a commit: %w", ErrNoSpace)
	}
	return err
}

// StatFS reports the file system's size and free space. Free blocks count
// blocks freed but not yet committed (they are free at the next commit)
// and exclude buffered data, unwritten reservations (as used, which they
// are to the user) and the metadata reserve.
func (fs *FS) StatFS() (StatFS, error) {
	fs.stats.count(opStatFS, 0)
	fs.lock()
	defer fs.unlock()
	free := fs.vol.FreeBlocks() + int64(len(fs.pendingFree)) - fs.reserved - fs.unwritten
	free = max(free, 0)
	ffree := uint64(free) * fs.geo.ipb
	return StatFS{
		Blocks: fs.vol.NumBlocks(), Bfree: uint64(free), Bavail: uint64(free),
		Files: uint64(fs.imap.nused) + ffree, Ffree: ffree,
		Bsize: uint32(fs.geo.bs), Namelen: MaxNameLen,
	}, nil
}
