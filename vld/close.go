package vld

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Close shuts the volume down cleanly: pending writes are flushed and the
// tail record names the log's root, so the next Open needs no scan. After a
// device failure Close only releases the device and returns the failure.
func (v *Volume) Close() error {
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.closeLocked()
}

// closeLocked is Close with commitMu and mu held.
func (v *Volume) closeLocked() error {
	if v.phase == phaseClosed {
		return ErrClosed
	}
	running := v.phase == phaseRun
	v.phase = phaseClosed
	if v.failed != nil || v.opts.ReadOnly {
		cerr := v.dev.Close()
		if v.failed != nil {
			return v.failed
		}
		return cerr
	}
	if running && !v.opts.KeepLog {
		if err := v.checkpointAtStopLocked(); err != nil {
			v.dev.Close()
			return fmt.Errorf("vld: close: %w", err)
		}
	}
	if err := v.writeTailLocked(); err != nil {
		v.dev.Close()
		return err
	}
	return v.dev.Close()
}

// Abandon closes a volume its user changed nothing on (a repair that
// found nothing it may fix): if nothing was written through it, the tail
// block goes back exactly as Open found it (Open clears it), so the image
// is byte for byte what it was; otherwise it closes as Close does.
func (v *Volume) Abandon() error {
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.phase == phaseClosed || v.failed != nil || v.opts.ReadOnly || v.stats.Writes != 0 || v.openTail == nil {
		return v.closeLocked()
	}
	v.phase = phaseClosed
	if _, err := v.dev.WriteAt(v.openTail, ondisk.TailAddr*int64(v.bs)); err != nil {
		v.dev.Close()
		return fmt.Errorf("vld: restoring the tail record: %w", err)
	}
	if err := v.dev.Flush(); err != nil {
		v.dev.Close()
		return fmt.Errorf("vld: flush: %w", err)
	}
	return v.dev.Close()
}

// writeTailLocked flushes everything, then writes and flushes the tail
// record. Blocks freed since the last commit are released: with the tail
// written, the state they belonged to is gone.
func (v *Volume) writeTailLocked() error {
	if err := v.flushLocked(); err != nil {
		return err
	}
	for a := range v.pending {
		v.alloc.MarkFree(int64(a))
	}
	v.pending, v.written = map[Addr]bool{}, map[Addr]uint32{}
	t := ondisk.Tail{UUID: v.sb.UUID, CkptSeq: v.log.ckpt.Seq, Root: v.log.root, NextSeq: v.log.nextSeq, SimMs: floatBits(v.m.now), HasDigest: true}
	t.Pieces, t.Digest = v.log.digest()
	buf := make([]byte, v.bs)
	t.Encode(buf)
	if _, err := v.dev.WriteAt(buf, ondisk.TailAddr*int64(v.bs)); err != nil {
		return fmt.Errorf("vld: writing tail record: %w", err)
	}
	return v.flushLocked()
}

// checkpointAtStopLocked copies every piece twice before a clean stop
// (piece_copies.go): the tail then names an empty log, and no single
// damaged block loses a commit. When the copies do not fit, a plain
// checkpoint still empties the log if it can: a stop after changes then
// always has a checkpoint of its own, so that the tail record of an
// earlier stop, left in place by lost writes, names another checkpoint
// and is not trusted (findRoot) instead of hiding this session's commits.
func (v *Volume) checkpointAtStopLocked() error {
	if err := v.protectLocked(); err != nil {
		return fmt.Errorf("copying the pieces: %w", err)
	}
	if v.log.root.IsZero() {
		return nil
	}
	if err := v.checkpointLocked(false); err != nil && !errors.Is(err, ErrNoSpace) {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}
