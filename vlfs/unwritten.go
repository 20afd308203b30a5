package vlfs

import (
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Unwritten reservations (file-system version 5, issue 31). fallocate
// reserves blocks that read as zeros; eager writing never writes a file
// block in place, so the reservation needs space, not a block. Before
// version 5 each one became a zero block at the next commit (about a
// second per GiB, holding up every fsync behind that commit); from it on
// the commit points the block at ondisk.UnwrittenAddr instead and writes
// nothing for it. fs.unwritten counts such pointers: every space check
// keeps that many blocks free (fs.reserved is the same for buffered
// blocks), the mount's walk counts them again, and a write into one, a
// truncate or a punch gives its space back (freeBlockLocked). A pointer
// is unwritten only in a regular file's data tree; reads, read-ahead,
// copies and placement hints treat it as a hole that reads as zeros,
// SEEK_DATA as data (as a reservation always was).

// isBlock reports whether pointer a names a block on the volume (not a
// hole, not an unwritten reservation).
func isBlock(a uint64) bool { return a != 0 && a != ondisk.UnwrittenAddr }

// settleReservationsLocked points every reservation (a nil buffer) of
// the dirty files at UnwrittenAddr, so that the commit being planned
// writes none of them as a zero block. Version 5 only; it does no I/O
// beyond loading the indirect blocks on the reservations' paths.
func (fs *FS) settleReservationsLocked() error {
	if !fs.unwrittenOK || fs.reservationsLocked() == 0 {
		return nil // the usual commit: nothing to look through
	}
	for _, in := range fs.sortedDirtyLocked() {
		if err := fs.settleInodeLocked(in); err != nil {
			return err
		}
	}
	return nil
}

// settleInodeLocked is settleReservationsLocked for one file.
func (fs *FS) settleInodeLocked(in *inode) error {
	if !fs.unwrittenOK || fs.reservationsLocked() == 0 {
		return nil
	}
	for lbn, b := range in.data {
		if b != nil {
			continue
		}
		if err := fs.prepareLocked(in, lbn); err != nil {
			return err
		}
		old, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return err
		}
		// Over an unwritten pointer (a zeroed range) setPtrLocked frees
		// nothing: the space is already kept.
		if err := fs.setPtrLocked(in, lbn, ondisk.UnwrittenAddr, 0); err != nil {
			return err
		}
		delete(in.data, lbn)
		fs.reserved--
		if old != ondisk.UnwrittenAddr {
			fs.unwritten++
		}
	}
	if len(in.data) == 0 {
		in.data = nil // as forgetDirtyLocked: a map keeps the room it grew to
	}
	return nil
}

// reservationsLocked counts the buffered reservations (nil buffers):
// every buffered block is in fs.reserved, and those holding bytes are in
// fs.dirtyBytes. Settling skips its walk over the dirty files when it is
// 0, as it is at almost every commit.
func (fs *FS) reservationsLocked() int64 {
	return fs.reserved - fs.dirtyBytes/int64(fs.geo.bs)
}

// freeUnwrittenLocked gives back the space of an unwritten pointer that
// is replaced or dropped; it reports whether a was one.
func (fs *FS) freeUnwrittenLocked(a vld.Addr) bool {
	if a != ondisk.UnwrittenAddr || !fs.unwrittenOK {
		return false
	}
	fs.unwritten--
	return true
}
