package vld

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/ondisk"
)

// Check verifies the volume's invariants, in the spirit of bbolt's tx.Check:
//   - the allocator's counters agree with its bitmap;
//   - the virtual-log tree holds: every current piece version written since
//     the checkpoint is reachable from the root, nothing unreachable is kept;
//   - the blocks in use are exactly the fixed blocks, the checkpoint's
//     directory, every piece version and tree entry kept, the blocks freed
//     but not yet released, and clientLive (what the client references); no
//     block is claimed twice;
//   - every kept entry reads back from the disk with the expected sequence
//     number, piece and (for current versions) payload.
func (v *Volume) Check(clientLive []Addr) error {
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.phase == phaseClosed {
		return ErrClosed
	}
	if err := v.alloc.Check(); err != nil {
		return fmt.Errorf("allocator: %w: %w", err, ErrCorrupt)
	}
	if err := v.log.check(); err != nil {
		return err
	}
	owner := make(map[Addr]string, len(clientLive)+64)
	claim := func(a Addr, who string) error {
		if prev, ok := owner[a]; ok {
			return fmt.Errorf("block %d claimed by %s and %s: %w", a, prev, who, ErrCorrupt)
		}
		owner[a] = who
		return nil
	}
	var err error
	add := func(as []Addr, who string) {
		for _, a := range as {
			if err == nil {
				err = claim(a, who)
			}
		}
	}
	add(fixedAddrs(), "volume header")
	add(v.superCopies, "superblock copy")
	add(v.log.dirBlocks, "checkpoint directory")
	add(v.log.pinned, "checkpointed old version")
	for _, l := range v.log.cur {
		if l.inCkpt {
			add(l.blocks(), "checkpointed piece")
		}
	}
	for _, e := range v.log.entries {
		add([]Addr{e.ref.Addr}, "log entry")
	}
	for a := range v.pending {
		add([]Addr{a}, "freed, not yet released")
	}
	add(clientLive, "client")
	if err != nil {
		return err
	}
	for a := range owner {
		if a >= v.sb.NumBlocks || !v.alloc.IsUsed(int64(a)) {
			return fmt.Errorf("block %d (%s) is not marked in use: %w", a, owner[a], ErrCorrupt)
		}
	}
	if int64(len(owner)) != int64(v.sb.NumBlocks)-v.alloc.Free() {
		return fmt.Errorf("%d blocks in use but %d accounted for (leak): %w", int64(v.sb.NumBlocks)-v.alloc.Free(), len(owner), ErrCorrupt)
	}
	return v.checkEntriesLocked()
}

func (v *Volume) checkEntriesLocked() error {
	g := v.log
	for p, l := range g.cur {
		if l.copies {
			for _, a := range l.blocks() {
				c, err := v.readCopy(p, a, l.ref.Seq)
				if err != nil {
					return fmt.Errorf("piece %d: %w: %w", p, ErrCorrupt, err)
				}
				if !bytes.Equal(c.Payload, g.payload[p]) {
					return fmt.Errorf("piece %d: its copy at block %d holds another payload: %w", p, a, ErrCorrupt)
				}
			}
			continue
		}
		e, err := v.readEntry(l.ref)
		if err != nil {
			return fmt.Errorf("piece %d at block %d: %w: %w", p, l.ref.Addr, ErrCorrupt, err)
		}
		if e.Piece != p || !bytes.Equal(e.Payload, g.payload[p]) {
			return fmt.Errorf("piece %d at block %d: disk holds piece %d or another payload: %w", p, l.ref.Addr, e.Piece, ErrCorrupt)
		}
	}
	// The tracks entries are checked against below must be those the
	// durable checkpoint lists: recovery scans only these.
	ck, err := v.loadCheckpoint()
	if err != nil {
		return err
	}
	if ck.Seq != g.ckpt.Seq || ck.WindowStart != g.ckpt.WindowStart || ck.WindowTracks != g.ckpt.WindowTracks || !slices.Equal(ck.Extra, g.ckpt.Extra) {
		return fmt.Errorf("durable checkpoint %d (window %d+%d, %d extra tracks) is not the one in memory (%d, %d+%d, %d): %w",
			ck.Seq, ck.WindowStart, ck.WindowTracks, len(ck.Extra), g.ckpt.Seq, g.ckpt.WindowStart, g.ckpt.WindowTracks, len(g.ckpt.Extra), ErrCorrupt)
	}
	if set, err := extraSet(ck, v.layout.NumTracks()); err != nil || !slices.Equal(set, g.extra) {
		return fmt.Errorf("extra log tracks in memory differ from checkpoint %d's: %w", ck.Seq, ErrCorrupt)
	}
	if err := v.checkDirLocked(ck); err != nil {
		return err
	}
	for s, le := range g.entries {
		e, err := v.readEntry(le.ref)
		if err != nil {
			return fmt.Errorf("log entry seq %d: %w: %w", s, ErrCorrupt, err)
		}
		if e.Piece != le.piece || len(e.Ptrs) != len(le.ptrs) {
			return fmt.Errorf("log entry seq %d differs on disk: %w", s, ErrCorrupt)
		}
		for i := range e.Ptrs {
			if e.Ptrs[i] != le.ptrs[i] {
				return fmt.Errorf("log entry seq %d pointer %d differs on disk: %w", s, i, ErrCorrupt)
			}
		}
		if !v.logWindow().Contains(v.layout.TrackOf(int64(le.ref.Addr)), v.layout.NumTracks()) {
			return fmt.Errorf("log entry seq %d at block %d lies outside the log window: %w", s, le.ref.Addr, ErrCorrupt)
		}
	}
	return nil
}

// checkDirLocked reads every directory block of the durable checkpoint ck
// and its copy: each must belong to the checkpoint that wrote it (a kept
// block, ondisk.CheckpointDirSeqsVersion, to an earlier one) and list
// what the volume takes it to list, which is what the next checkpoint
// compares to decide whether to keep it.
func (v *Volume) checkDirLocked(ck *ondisk.Checkpoint) error {
	g := v.log
	for i, a := range ck.DirBlocks {
		at := []uint64{a}
		if i < len(ck.DirCopies) {
			at = append(at, ck.DirCopies[i])
		}
		for _, b := range at {
			d, err := v.readDirBlock(ck, i, b)
			if err != nil {
				return err
			}
			if i < len(g.dirList) && g.dirList[i] != nil && !slices.Equal(d.Entries, g.dirList[i]) {
				return fmt.Errorf("checkpoint %d directory block %d at %d lists other places than the volume holds: %w", ck.Seq, i, b, ErrCorrupt)
			}
		}
	}
	return nil
}
