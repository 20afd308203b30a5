package damage

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
)

// DamageStale is the "stale older version" damage: the block holds an
// older, self-consistent version of what it should hold, as after a write
// the device acknowledged and lost. An overlay of a finished image has no
// older version to put back, so a stale case first makes one: a small real
// change through vlfs moves the block's contents to a new address (eager
// writing never writes in place), and the bytes the block held before the
// change are then put there. The pointer names the new address and, on
// version 4, carries the new contents' checksum: that is what must catch it.
const DamageStale = "stale"

// ErrStale: a stale case could not make its older version (the change
// left the block where and as it was). The case fails with it: a stale
// row that silently damaged nothing would look like one that held.
var ErrStale = errors.New("damage: no older version made")

// staleSkip is why kind has no stale older version ("" when it has one).
// Run reports these in Report.Skipped instead of running them.
func staleSkip(kind string) string {
	switch kind {
	case KindSuperblock:
		return "block 0 and its copies are written once, by mkfs: the only version is the current one"
	case KindLogRoot, KindLogEntry:
		return "a log entry is written once, at a new address, and never rewritten: there is no older version of the same entry " +
			"(a lost write of a new entry leaves whatever the block held before, which the bit/zero/random rows stand for)"
	case KindPieceCopy:
		return "a piece copy is written once, at a new address, by the checkpoint at rest that names it: there is no older version of the same copy"
	}
	return ""
}

// staleCopy is a copy of the image after one small change made through
// vlfs, and the block whose older version the case puts back.
type staleCopy struct {
	ov   *overlay // the changed copy; the damage goes into an overlay over it
	fs   *vlfs.FS // ov mounted read-only: the state after the change
	from uint64   // where the block was before the change
	at   uint64   // where the change put its newer version
	old  []byte   // what the block held before the change
	what string   // the change, for messages
	// mustDetect: fsck must find the older version (staleChange.readBack
	// is the exception)
	mustDetect bool
}

// staleChange is one kind's change: what it does to fs, and how to find
// the block's current address in a file system (before and after).
type staleChange struct {
	what   string
	change func(fs *vlfs.FS) error
	locate func(fs *vlfs.FS) (uint64, error)
	// readBack: the block is a hint the volume checks, not a version it
	// reads as is (the tail), so fsck need not find its older version;
	// the case holds if the files read back the state after the change.
	// Every other older version must be found: read as is, it is the lost
	// write the damage stands for.
	readBack bool
}

// makeStale copies img, makes a change that rewrites block b (of kind)
// through a read-write mount of the copy, closes it cleanly and mounts the
// copy read-only again. The caller closes the returned fs.
func makeStale(img device.Device, bs int, kind string, b block) (*staleCopy, error) {
	ov := newOverlay(img, bs)
	old := make([]byte, bs)
	if _, err := ov.ReadAt(old, int64(b.addr)*int64(bs)); err != nil {
		return nil, fmt.Errorf("reading block %d before the change: %w", b.addr, err)
	}
	fs, err := vlfs.Mount(ov, vlfs.Options{})
	if err != nil {
		return nil, fmt.Errorf("mounting the copy read-write for the change: %w", err)
	}
	sc, err := staleChangeFor(fs, kind, b, old)
	if err == nil {
		err = checkLocate(fs, sc, b.addr)
	}
	if err == nil {
		err = sc.change(fs)
	}
	if cerr := fs.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing the copy after the change: %w", cerr)
	}
	if err != nil {
		return nil, fmt.Errorf("%s of %s block %d: %w", sc.what, kind, b.addr, err)
	}
	after, err := vlfs.Mount(ov, vlfs.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("mounting the copy after %s: %w", sc.what, err)
	}
	at, err := sc.locate(after)
	if err == nil {
		err = newerAt(ov, bs, b.addr, at, old)
	}
	if err != nil {
		after.Close()
		return nil, fmt.Errorf("%s of %s block %d: %w", sc.what, kind, b.addr, err)
	}
	return &staleCopy{ov: ov, fs: after, from: b.addr, at: at, old: old, what: sc.what, mustDetect: !sc.readBack}, nil
}

// checkLocate makes sure the change's locate finds the picked block
// before the change: otherwise it would follow some other block.
func checkLocate(fs *vlfs.FS, sc staleChange, want uint64) error {
	got, err := sc.locate(fs)
	if err != nil {
		return fmt.Errorf("locating the block before the change: %w", err)
	}
	if got != want {
		return fmt.Errorf("%w: the block is found at %d before the change, not at %d", ErrStale, got, want)
	}
	return nil
}

// newerAt checks that the change made a newer version: at a new address
// (or, for the fixed blocks, at the same one) with other bytes than old.
func newerAt(ov *overlay, bs int, from, at uint64, old []byte) error {
	cur := make([]byte, bs)
	if _, err := ov.ReadAt(cur, int64(at)*int64(bs)); err != nil {
		return fmt.Errorf("reading block %d after the change: %w", at, err)
	}
	if bytes.Equal(cur, old) {
		return fmt.Errorf("%w: block %d (was %d) holds the same bytes after the change", ErrStale, at, from)
	}
	return nil
}
