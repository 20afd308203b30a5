package rangedisk

import (
	"math"

	"github.com/vlfs/vlfs/vld/disk"
)

// piece is the part of a range write's targets that starts on one track:
// the aligned starts in [lo, hi]. A multi-block write starting on the track
// may run onto the next one; only its start decides the positioning time.
type piece struct {
	track  int
	lo, hi int64
}

// splitPieces splits the targets of an n-block write with the given
// alignment into per-track pieces (the "hierarchical" step of HRS).
func splitPieces(l *disk.Layout, runs []Extent, n, align int) []piece {
	var out []piece
	for _, e := range runs {
		first := alignUp(e.Begin, align)
		last := alignDown(e.End-int64(n), align)
		if last < first {
			continue
		}
		for t := l.TrackOf(first); t < l.NumTracks(); t++ {
			ts := l.TrackStart(t)
			te := ts + int64(l.TrackBlocks(t))
			lo, hi := max(first, alignUp(ts, align)), min(last, alignDown(te-1, align))
			if lo <= hi {
				out = append(out, piece{track: t, lo: lo, hi: hi})
			}
			if te > last {
				break
			}
		}
	}
	return out
}

// hrsPiece is a piece in one decision, with its request and its
// seek-and-settle lower bound (overhead + move onto its track).
type hrsPiece struct {
	idx int
	pc  piece
	n   int
	a   int
	lb  float64
	seq int // input order, the tie-break
}

// hrsBest runs hierarchical-range scheduling over the queue's range writes
// and returns the service-time estimates made.
func (d *Disk) hrsBest(best *candidate) int {
	ovh := d.overheadMs(true)
	d.hrs = d.hrs[:0]
	for i, p := range d.queue {
		for _, pc := range p.pieces {
			lb := ovh + d.l.MoveMs(d.head, pc.track, true)
			d.hrs = append(d.hrs, hrsPiece{idx: i, pc: pc, n: p.req.Blocks, a: p.req.Align, lb: lb})
		}
	}
	d.stats.SeekBounds += int64(len(d.hrs))
	est, pruned := hrsSearch(d.l, d.head, d.now, ovh, d.hrs, d.res.taken, best)
	d.stats.Pruned += int64(pruned)
	return est
}

// hrsSearch visits pieces in order of their seek-and-settle bound and
// stops at the first whose bound is no better than the best so far: every
// later one is at least as far. Each visited piece gets one estimate, at
// the target the head reaches first (the next one inside the piece if the
// head arrives within it, else its first after a rotation).
func hrsSearch(l *disk.Layout, h disk.Head, nowMs, ovh float64, ps []hrsPiece, taken func(int64, int) bool, best *candidate) (est, pruned int) {
	hp := pieceHeap(ps)
	hp.init()
	t0 := nowMs + ovh
	for len(hp) > 0 {
		p := hp.pop()
		if p.lb >= best.cost {
			return est, len(hp) + 1
		}
		s, ok := pieceStart(l, t0+p.lb-ovh, p.pc, p.n, p.a, taken)
		if !ok {
			continue
		}
		best.offer(ovh+l.PositionMs(h, t0, s, true), p.idx, s)
		est++
	}
	return est, 0
}

// snapRev mirrors disk's phase snap: a block whose start is within this
// fraction of a revolution behind the head still counts as "now".
const snapRev = 1e-6

// pieceStart returns the free aligned start in pc that first passes under
// the head when it arrives on the track at arriveMs: the first at or after
// the head's angular position, else (wrapping) the first in the piece.
func pieceStart(l *disk.Layout, arriveMs float64, pc piece, n, align int, taken func(int64, int) bool) (int64, bool) {
	ts := l.TrackStart(pc.track)
	bfrac := l.BlockMs(pc.track) / l.RotationMs() // a block's share of a revolution
	rel := l.PhaseAt(arriveMs) - l.BlockPhase(ts)
	rel -= math.Floor(rel)
	from := ts + int64(math.Ceil(rel/bfrac-snapRev/bfrac))
	a := int64(align)
	for s := max(alignUp(from, align), pc.lo); s <= pc.hi; s += a {
		if !taken(s, n) {
			return s, true
		}
	}
	for s := pc.lo; s <= pc.hi && s < from; s += a {
		if !taken(s, n) {
			return s, true
		}
	}
	return 0, false
}
