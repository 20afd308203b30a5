package vld

import (
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// DefaultLogWindow is the fraction of the disk's tracks the log window
// spans unless Options.LogWindow says otherwise (at least 64 tracks).
const DefaultLogWindow = 1.0 / 16

// windowTracks is how many tracks the log window spans: frac of them (0:
// DefaultLogWindow, rounded down), at least 64. The tail scan after an
// unclean stop reads at most this much of the disk.
func windowTracks(ntracks int, frac float64) uint32 {
	w := int(float64(ntracks) * DefaultLogWindow)
	if frac > 0 {
		w = int(math.Ceil(frac * float64(ntracks)))
	}
	if w < 64 {
		w = 64
	}
	if w > ntracks {
		w = ntracks
	}
	return uint32(w)
}

// checkpointLocked writes the location of every piece's current version and
// resets the tree. Order: directory blocks and their copies, flush, both
// checkpoint slots, flush;
// only then are the previous checkpoint's blocks and every obsolete entry
// recycled. The new log window starts at the head; the extra log tracks
// are chosen once the directory blocks are placed (log_tracks.go).
//
// A checkpoint at rest (piece_copies.go) also writes two copies of every
// piece version that has fewer, into holes before the directory, and
// names them in place of the version's entry or lone copy.
func (v *Volume) checkpointLocked(rest bool) (err error) {
	g := v.log
	order := make([]uint32, 0, len(g.cur))
	for p := range g.cur {
		order = append(order, p)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	var fresh []uint32 // pieces given two new copies
	if rest {
		for _, p := range order {
			if !g.cur[p].redundant() {
				fresh = append(fresh, p)
			}
		}
		if !v.copiesFitLocked(len(fresh)) {
			fresh = nil
		}
	}
	copyBlocks, err := v.pieceCopyBlocks(fresh)
	if err != nil {
		return err
	}
	next := map[uint32]pieceLoc{} // where the fresh pieces go
	defer func() {
		if err != nil && v.failed == nil {
			// Nothing durable names the copies (a placement failed after
			// them): their blocks are free again.
			for _, l := range next {
				for _, a := range l.blocks() {
					v.alloc.MarkFree(int64(a))
				}
			}
		}
	}()
	per := ondisk.DirEntriesPerBlock(v.bs)
	ck := ondisk.Checkpoint{
		UUID: v.sb.UUID, Seq: g.ckpt.Seq + 1, LogSeq: g.nextSeq - 1, NextSeq: g.nextSeq,
		WindowTracks: windowTracks(v.layout.NumTracks(), v.opts.LogWindow),
		NumPieces:    uint32(len(order)), SimMs: floatBits(v.m.now),
	}
	ck.WindowStart = uint32(v.windowStartLocked(int(ck.WindowTracks)))
	var dirAddrs []Addr
	n := (len(order) + per - 1) / per
	// Each directory block is written twice (issue 34), in the same
	// request when eager writing finds room for both near the head: a
	// damaged directory block loses every piece it lists. The copies
	// leave room for the extra tracks beside them.
	copies := ondisk.CopiesFit(v.bs, n, 0)
	if n > 0 {
		// Copies are cold: they plug holes, as the compactor's moves do,
		// and take no empty track it made (eagerly placed when no hole is
		// left).
		if len(copyBlocks) > 0 {
			runs, err := v.placeHolesLocked(len(copyBlocks), alloc.HoleFilter{Avoid: -1})
			if errors.Is(err, ErrNoSpace) {
				runs, err = v.placeLocked(len(copyBlocks), alloc.Window{})
			}
			if err != nil {
				return err
			}
			addrs := runAddrs(runs)
			for i, p := range fresh {
				next[p] = pieceLoc{ref: ondisk.Ref{Addr: addrs[2*i], Seq: g.cur[p].ref.Seq}, copies: true, pair: addrs[2*i+1]}
			}
			if err := v.writeRunsLocked(runs, copyBlocks); err != nil {
				return err
			}
		}
		lists := dirLists(order, per, func(p uint32) pieceLoc {
			if l, ok := next[p]; ok {
				return l
			}
			return g.cur[p]
		})
		kept := v.keptDirBlocksLocked(lists, copies)
		g.dirList = nil // until the new blocks are durable (below)
		var write []int // the directory blocks written now
		for i := range n {
			if !kept[i] {
				write = append(write, i)
			}
		}
		m := len(write)
		if copies {
			m *= 2
		}
		var runs []run
		if m > 0 {
			if runs, err = v.placeLocked(m, alloc.Window{}); err != nil {
				return err
			}
		}
		addrs := runAddrs(runs)
		ck.DirBlocks = make([]uint64, n)
		if copies {
			ck.DirCopies = make([]uint64, n)
		}
		blocks := make([][]byte, m)
		for j, i := range write {
			ck.DirBlocks[i] = uint64(addrs[j])
			d := ondisk.DirBlock{UUID: v.sb.UUID, CkptSeq: ck.Seq, Index: uint32(i), Entries: lists[i]}
			blocks[j] = make([]byte, v.bs)
			if err := d.Encode(blocks[j]); err != nil {
				return err
			}
			if copies {
				ck.DirCopies[i] = uint64(addrs[len(write)+j])
				blocks[len(write)+j] = blocks[j]
			}
		}
		if len(write) < n {
			ck.DirSeqs = make([]uint64, n)
			for i := range n {
				ck.DirSeqs[i] = ck.Seq
				if kept[i] {
					ck.DirBlocks[i], ck.DirSeqs[i] = g.ckpt.DirBlocks[i], g.ckpt.DirSeq(i)
					if copies {
						ck.DirCopies[i] = g.ckpt.DirCopies[i]
					}
				}
			}
		}
		j := 0
		for _, r := range runs {
			if err := v.writeRunLocked(r, blocks[j:j+r.N]); err != nil {
				return err
			}
			j += r.N
		}
		dirAddrs = append(slices.Clone(ck.DirBlocks), ck.DirCopies...)
		defer func() { // what the blocks list, once they are durable
			if err == nil {
				g.dirList = lists
			}
		}()
	}
	// The sequences take a directory block's room in the slot.
	ck.Extra = v.extraTracksLocked(alloc.Window{Start: int(ck.WindowStart), N: int(ck.WindowTracks)}, len(dirAddrs)+len(ck.DirSeqs))
	extra, err := extraSet(&ck, v.layout.NumTracks())
	if err != nil {
		return err
	}
	if err := v.flushLocked(); err != nil {
		return err
	}
	slot := make([]byte, v.bs)
	if err := ck.Encode(slot); err != nil {
		return err
	}
	// Both slots, in one request (issue 34): a damaged slot leaves the
	// other. Before it both hold the previous checkpoint, so a write torn
	// anywhere leaves one slot whole, old or new (the old one's blocks are
	// kept until the flush below returns).
	if err := v.writeRunLocked(run{Start: ondisk.CheckpointA, N: 2}, [][]byte{slot, slot}); err != nil {
		return err
	}
	if err := v.flushLocked(); err != nil {
		return err
	}
	// The new checkpoint is durable: recycle what only the old one needed.
	keep := map[Addr]bool{}
	for _, a := range dirAddrs {
		keep[a] = true
	}
	for _, a := range g.dirBlocks {
		if !keep[a] { // a directory block this checkpoint kept stays
			v.alloc.MarkFree(int64(a))
		}
	}
	for _, a := range g.pinned {
		v.alloc.MarkFree(int64(a))
	}
	for p, l := range next {
		// The versions the copies replace: a checkpointed entry or lone
		// copy is free now; an entry logged since goes with the others.
		if old := g.cur[p]; old.inCkpt {
			for _, a := range old.blocks() {
				v.alloc.MarkFree(int64(a))
			}
		}
		g.setCur(p, l)
		v.stats.PieceCopies += 2
	}
	for s, e := range g.entries {
		if !g.isLive(e) {
			v.alloc.MarkFree(int64(e.ref.Addr))
		}
		delete(g.entries, s)
	}
	for p, l := range g.cur {
		l.inCkpt = true
		g.setCur(p, l)
	}
	g.root = ondisk.Ref{}
	g.sinceCkpt = 0
	g.pinned = nil
	g.dirBlocks = dirAddrs
	if n == 0 {
		g.dirList = nil
	}
	g.ckpt, g.extra = ck, extra
	g.extraCyls = alloc.ExtraCylinders(ck.Extra, v.layout.Model().Surfaces)
	v.stats.Checkpoints++
	return nil
}

// windowRoom is the free blocks a new log window must hold when the disk
// has them: a few commits' entries. A window born with one free block
// (the first track with any, on a nearly full disk) filled with the first
// entry, and the commit after the checkpoint that moved it failed with
// ErrNoSpace while the disk still had free blocks elsewhere. It is small
// so that the window stays at the head whenever it can: 64 moved it away
// at 95 % and made bench updates' lfs rows 8 % slower; 8 changes nothing
// there.
const windowRoom = 8

// windowStartLocked is where a new log window of wt tracks starts: the
// head's track, or the first track after it from which the window holds
// windowRoom free blocks (eager writing packs the head's neighbourhood
// first, so it may be full); on a disk with fewer free blocks anywhere,
// the start whose window holds the most.
func (v *Volume) windowStartLocked(wt int) int {
	nt := v.layout.NumTracks()
	h := v.m.headTrack()
	wt = min(max(wt, 1), nt)
	free := func(t int) int64 { return int64(v.alloc.TrackFree(t % nt)) }
	var sum int64 // free blocks of the window starting at h+i
	for i := 0; i < wt; i++ {
		sum += free(h + i)
	}
	best, bestSum := h, int64(-1)
	for i := 0; i < nt; i++ {
		t := (h + i) % nt
		if free(t) > 0 {
			if sum >= windowRoom {
				return t
			}
			if sum > bestSum {
				best, bestSum = t, sum
			}
		}
		sum += free(t+wt) - free(t)
	}
	return best
}

// dirLists is what each directory block of a checkpoint lists: the pieces
// in order, per to a block, each where loc says.
func dirLists(order []uint32, per int, loc func(uint32) pieceLoc) [][]ondisk.DirEntry {
	var out [][]ondisk.DirEntry
	for lo := 0; lo < len(order); lo += per {
		hi := min(lo+per, len(order))
		list := make([]ondisk.DirEntry, 0, hi-lo)
		for _, p := range order[lo:hi] {
			l := loc(p)
			list = append(list, ondisk.DirEntry{Piece: p, At: l.ref, Copies: l.copies, Pair: uint64(l.pair)})
		}
		out = append(out, list)
	}
	return out
}

// keptDirBlocksLocked says which directory blocks of a checkpoint that
// lists lists (copies: with a copy of each) the durable checkpoint's
// blocks stand for: a sound block at the same index that lists the same,
// with a copy if and only if copies. Random updates of a file system
// change a few of its directory blocks between checkpoints (its record
// pieces, numbered in order), so each checkpoint wrote all of them again
// for nothing. Keeping any needs the slot to name the sequences
// (ondisk.CheckpointDirSeqsVersion).
func (v *Volume) keptDirBlocksLocked(lists [][]ondisk.DirEntry, copies bool) []bool {
	g := v.log
	n := len(lists)
	kept := make([]bool, n)
	k := 0
	if copies {
		k = n
	}
	if !ondisk.DirSeqsFit(v.bs, n, 0, k) || (len(g.ckpt.DirCopies) > 0) != copies {
		return kept
	}
	for i := range min(n, len(g.dirList), len(g.ckpt.DirBlocks)) {
		kept[i] = g.dirList[i] != nil && slices.Equal(g.dirList[i], lists[i])
	}
	return kept
}
