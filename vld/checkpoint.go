package vld

import (
	"math"
	"sort"

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
// resets the tree. Order: directory blocks, flush, checkpoint slot, flush;
// only then are the previous checkpoint's blocks and every obsolete entry
// recycled. The new log window starts at the head; the extra log tracks
// are chosen once the directory blocks are placed (log_tracks.go).
func (v *Volume) checkpointLocked() error {
	g := v.log
	order := make([]uint32, 0, len(g.cur))
	for p := range g.cur {
		order = append(order, p)
	}
	sort.Slice(order, func(i, j int) bool { return order[i] < order[j] })
	per := ondisk.DirEntriesPerBlock(v.bs)
	ck := ondisk.Checkpoint{
		UUID: v.sb.UUID, Seq: g.ckpt.Seq + 1, LogSeq: g.nextSeq - 1, NextSeq: g.nextSeq,
		WindowStart: uint32(v.windowStartLocked()), WindowTracks: windowTracks(v.layout.NumTracks(), v.opts.LogWindow),
		NumPieces: uint32(len(order)), SimMs: floatBits(v.m.now),
	}
	var dirAddrs []Addr
	if n := (len(order) + per - 1) / per; n > 0 {
		runs, err := v.placeLocked(n, window{})
		if err != nil {
			return err
		}
		dirAddrs = runAddrs(runs)
		blocks := make([][]byte, n)
		for i := range blocks {
			lo, hi := i*per, (i+1)*per
			if hi > len(order) {
				hi = len(order)
			}
			d := ondisk.DirBlock{UUID: v.sb.UUID, CkptSeq: ck.Seq, Index: uint32(i)}
			for _, p := range order[lo:hi] {
				d.Entries = append(d.Entries, ondisk.DirEntry{Piece: p, At: g.cur[p].ref})
			}
			blocks[i] = make([]byte, v.bs)
			if err := d.Encode(blocks[i]); err != nil {
				return err
			}
		}
		j := 0
		for _, r := range runs {
			if err := v.writeRunLocked(r, blocks[j:j+r.n]); err != nil {
				return err
			}
			j += r.n
		}
	}
	ck.DirBlocks = dirAddrs
	ck.Extra = v.extraTracksLocked(window{start: int(ck.WindowStart), n: int(ck.WindowTracks)}, len(dirAddrs))
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
	if err := v.writeRunLocked(run{start: ckptSlot(ck.Seq), n: 1}, [][]byte{slot}); err != nil {
		return err
	}
	if err := v.flushLocked(); err != nil {
		return err
	}
	// The new checkpoint is durable: recycle what only the old one needed.
	for _, a := range g.dirBlocks {
		v.alloc.markFree(int64(a))
	}
	for _, a := range g.pinned {
		v.alloc.markFree(int64(a))
	}
	for s, e := range g.entries {
		if !g.isLive(e) {
			v.alloc.markFree(int64(e.ref.Addr))
		}
		delete(g.entries, s)
	}
	for p, l := range g.cur {
		l.inCkpt = true
		g.cur[p] = l
	}
	g.root = ondisk.Ref{}
	g.sinceCkpt = 0
	g.pinned = nil
	g.dirBlocks = dirAddrs
	g.ckpt, g.extra = ck, extra
	v.stats.Checkpoints++
	return nil
}

// windowStartLocked is where a new log window starts: the head's track, or
// the first track after it with free space, so that the window is never
// born full (eager writing packs the head's neighbourhood first).
func (v *Volume) windowStartLocked() int {
	nt := v.layout.NumTracks()
	h := v.m.headTrack()
	for i := 0; i < nt; i++ {
		if t := (h + i) % nt; v.alloc.trackFree[t] > 0 {
			return t
		}
	}
	return h
}

// ckptSlot alternates between the two checkpoint slots.
func ckptSlot(seq uint64) int64 {
	if seq%2 == 1 {
		return ondisk.CheckpointA
	}
	return ondisk.CheckpointB
}
