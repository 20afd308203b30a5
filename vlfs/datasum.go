package vlfs

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Data checksums (file-system version 4, ondisk/datasum.go): every pointer
// to a file or directory block carries the CRC-32C of the block, set when
// the block is written (the bytes handed to the volume) and kept when the
// compactor moves it. Each read of a data block from the volume is
// checked against it before a byte reaches the caller, so damage, a lost
// write or a stale older copy reads as EIO (counted and logged with the
// inode and the offset), never as wrong bytes.

// ErrChecksum marks a block whose bytes do not match the checksum its
// pointer carries. It wraps ErrCorrupt: the answer is EIO and the image
// wants fsck.
var ErrChecksum = fmt.Errorf("vlfs: data checksum mismatch: %w", ErrCorrupt)

// verifyMeta checks a block read into b against the checksum whatever
// names it carries (a pointer, a map entry, the inode): a mismatch is
// ErrChecksum. Callers loading metadata treat it as a block that does not
// decode (a stale older version passes its own CRC, not this); data
// reads add where the block is (checkBlock).
func (g geometry) verifyMeta(b []byte, want uint32) error {
	if !g.summed {
		return nil
	}
	if got := ondisk.DataSum(b); got != want {
		return fmt.Errorf("checksum %#08x, its pointer says %#08x: %w", got, want, ErrChecksum)
	}
	return nil
}

// sumCheck is what verifying a block read needs: where it is in its file
// and the checksum its pointer carried when the read was planned.
type sumCheck struct {
	lbn uint64
	sum uint32
}

// verifyBlock checks block lbn of ino, read from a into b, against sum,
// and counts and logs a mismatch. It needs no lock: the counter is atomic
// and the log line is the logger's.
func (fs *FS) verifyBlock(ino Ino, lbn uint64, a vld.Addr, sum uint32, b []byte) error {
	err := fs.checkBlock(ino, lbn, a, sum, b)
	if err != nil {
		fs.reportChecksum(err)
	}
	return err
}

// checkBlock is verifyBlock without counting or logging: an unlocked
// read's mismatch may be a block rewritten in place meanwhile (in-place
// placement), which the read retries before it reports anything.
func (fs *FS) checkBlock(ino Ino, lbn uint64, a vld.Addr, sum uint32, b []byte) error {
	err := fs.geo.verifyMeta(b, sum)
	if err != nil {
		off := lbn * uint64(fs.geo.bs)
		err = fmt.Errorf("inode %d: block %d (bytes %d..%d) at %d: %w", ino, lbn, off, off+uint64(fs.geo.bs)-1, a, err)
	}
	return err
}

// reportChecksum counts and logs a data checksum mismatch.
func (fs *FS) reportChecksum(err error) {
	fs.stats.checksumErrors.Add(1)
	fs.logf("vlfs: %v", err)
}
