package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// WriteCommit writes data eagerly and commits it together with the map
// pieces that reference it, in as few requests as possible: the data blocks
// and the pieces' log entries are placed as one contiguous run in the log
// window when there is room, so a synchronous small write costs one
// positioning and one controller overhead instead of two. payload is called
// with the data's addresses (under the volume's lock: it must not call the
// volume) and returns the payloads of the pieces named in pieces. The
// volume copies the payloads and keeps none of data's slices once it
// returns, so the caller may reuse all of them.
//
// The durability contract is Commit's: on return data and pieces are
// durable; a crash before that recovers the previous state.
func (v *Volume) WriteCommit(data [][]byte, pieces []uint32, payload func(addrs []Addr) map[uint32][]byte) ([]Addr, error) {
	return v.WriteCommitOpts(data, WriteOpts{}, pieces, payload)
}

// WriteCommitOpts is WriteCommit with placement hints for data (o.Near,
// o.Replaces). With o.Meta the data may use the reserve, as metadata
// written by WriteBlocks may: a file system's inode blocks must commit on a
// full disk, or the directory and indirect blocks already written into the
// reserve could never be made reachable, and no delete could commit.
func (v *Volume) WriteCommitOpts(data [][]byte, o WriteOpts, pieces []uint32, payload func(addrs []Addr) map[uint32][]byte) ([]Addr, error) {
	for i, d := range data {
		if len(d) != v.bs {
			return nil, fmt.Errorf("write block %d: %d bytes, block size %d: %w", i, len(d), v.bs, ErrInvalid)
		}
	}
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return nil, err
	}
	if v.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	n, k := len(data), len(pieces)
	if need := int64(n + k); (!o.Meta && v.alloc.Free()-int64(n) < v.reserve) || v.alloc.Free() < need {
		return nil, fmt.Errorf("writing %d blocks with %d free (%d reserved): %w", n, v.alloc.Free(), v.reserve, ErrNoSpace)
	}
	defer v.endGatherLocked()
	// Gathered writes of this commit come first: data and entries go right
	// after them when there is room (gather.go); else the held-back writes
	// are issued and placement proceeds from the head's real position.
	var runs []run
	if r, ok := v.extendLocked(n+k, v.logWindow()); ok {
		runs = append(runs, r)
	} else {
		if err := v.drainLocked(); err != nil {
			return nil, err
		}
		if !v.oneRunLocked(n, k) {
			v.hintLocked(o, n)
			return v.writeThenCommitLocked(data, pieces, payload)
		}
		var err error
		if runs, err = v.placeInWindowLocked(n + k); err != nil {
			return nil, err
		}
	}
	addrs := runAddrs(runs)
	pl := payload(addrs[:n])
	if len(pl) != k {
		for _, a := range addrs {
			v.alloc.MarkFree(int64(a))
		}
		return nil, fmt.Errorf("write-commit: %d payloads for %d pieces: %w", len(pl), k, ErrInvalid)
	}
	covers := v.takeCoversLocked()
	for i, d := range data {
		covers = append(covers, ondisk.Cover{Addr: addrs[i], CRC: blockCRC(d)})
	}
	frees := v.takePendingLocked()
	entries, freed, rest, err := v.buildGroupLocked(pl, covers, addrs[n:])
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 {
		// Too many blocks to cover: the data goes first and is flushed,
		// then the entries.
		dataRuns, entryRuns := splitRuns(runs, n)
		if err := v.writeRunsLocked(dataRuns, data); err != nil {
			return nil, err
		}
		if err := v.flushLocked(); err != nil {
			return nil, err
		}
		if err := v.writeRunsLocked(entryRuns, entries); err != nil {
			return nil, err
		}
	} else {
		blocks := append(append(v.commit.blocks[:0], data...), entries...)
		err := v.writeRunsLocked(runs, blocks)
		clear(blocks) // the client's blocks are its own again
		v.commit.blocks = blocks[:0]
		if err != nil {
			return nil, err
		}
	}
	v.endGatherLocked()
	if err := v.flushUnlocked(); err != nil {
		return nil, err
	}
	v.releaseFreesLocked(append(frees, freed...), k > 0)
	v.stats.Commits++
	if v.log.sinceCkpt >= v.checkpointEvery() {
		return addrs[:n], v.checkpointLocked(false)
	}
	return addrs[:n], nil
}

// takePendingLocked snapshots the blocks freed since the last commit.
func (v *Volume) takePendingLocked() []Addr {
	frees := make([]Addr, 0, len(v.pending))
	for a := range v.pending {
		frees = append(frees, a)
	}
	v.pending = emptied(v.pending)
	return frees
}

// splitRuns cuts runs after the first n blocks.
func splitRuns(runs []run, n int) (head, tail []run) {
	for _, r := range runs {
		switch {
		case n >= r.N:
			head = append(head, r)
			n -= r.N
		case n > 0:
			head = append(head, run{Start: r.Start, N: n})
			tail = append(tail, run{Start: r.Start + int64(n), N: r.N - n})
			n = 0
		default:
			tail = append(tail, r)
		}
	}
	return head, tail
}

// oneRunCheaperLocked estimates whether data (n blocks) and its entries (k
// blocks) are written faster as one contiguous run in the log window than as
// two requests (data wherever the head reaches free space first, then the
// entries): a run of n+k free blocks is rarer than a single free block, so
// on a disk whose controller overhead is small the second wins.
func (v *Volume) oneRunCheaperLocked(n, k int) bool {
	ovh := v.m.overheadMs(true)
	w := v.logWindow()
	if !w.Contains(v.m.headTrack(), v.layout.NumTracks()) {
		return false
	}
	one := v.head.Choose(v.alloc, v.m.head, v.m.now+ovh, n+k, w)
	if one.Block < 0 {
		return false
	}
	first := v.head.Choose(v.alloc, v.m.head, v.m.now+ovh, n, alloc.Window{})
	if first.Block < 0 {
		return true
	}
	t := v.layout.TrackOf(first.Block)
	cyl, surf := v.layout.CylSurf(t)
	after := v.m.now + ovh + first.Cost + float64(n)*v.layout.BlockMs(t) + ovh
	second := v.head.Choose(v.alloc, disk.Head{Cyl: cyl, Surf: surf}, after, k, w)
	if second.Block < 0 {
		return true
	}
	return one.Cost < first.Cost+ovh+second.Cost
}

// writeThenCommitLocked is WriteCommit as two requests: the data where the
// head reaches free space first, then the entries in the log window; one
// flush for both.
func (v *Volume) writeThenCommitLocked(data [][]byte, pieces []uint32, payload func(addrs []Addr) map[uint32][]byte) ([]Addr, error) {
	runs, err := v.placeLocked(len(data), alloc.Window{})
	if err != nil {
		return nil, err
	}
	if err := v.writeRunsLocked(runs, data); err != nil {
		return nil, err
	}
	addrs := runAddrs(runs)
	for i, a := range addrs {
		v.written[a] = blockCRC(data[i])
	}
	pl := payload(addrs)
	if len(pl) != len(pieces) {
		return nil, fmt.Errorf("write-commit: %d payloads for %d pieces: %w", len(pl), len(pieces), ErrInvalid)
	}
	return addrs, v.commitLocked(pl)
}
