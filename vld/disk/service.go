package disk

// Head is the arm's position: the cylinder it is over and the surface
// whose head is selected.
type Head struct{ Cyl, Surf int }

// Access is one request's simulated service time split by cause (ms).
// When a seek and a head switch overlap, SeekMs holds the seek and
// HeadSwitchMs only the part of the switch that outlasts it; write settle
// is charged to whichever of the two moved the head last. Track crossings
// inside a multi-track request add to the same fields.
type Access struct {
	OverheadMs   float64 // controller command overhead
	SeekMs       float64 // arm movement (+ write settle)
	HeadSwitchMs float64 // head switch not hidden by a seek (+ write settle)
	RotationMs   float64 // rotational wait
	TransferMs   float64 // media transfer
}

// LocateMs is the time spent getting to the data: seek + switch + rotation.
func (a Access) LocateMs() float64 { return a.SeekMs + a.HeadSwitchMs + a.RotationMs }

// TotalMs is the whole service time.
func (a Access) TotalMs() float64 { return a.OverheadMs + a.LocateMs() + a.TransferMs }

// move is the positioning part of a request, split as in Access.
type move struct{ seek, sw, rot float64 }

func (mv move) total() float64 { return mv.seek + mv.sw + mv.rot }

// moveMs returns the seek and switch parts of moving the head from h to
// track t: the seek for the cylinder distance, the head switch if the
// surface differs, overlapping (the longer wins), plus WriteSettleMs for a
// write whenever the head moved.
func (l *Layout) moveMs(h Head, t int, write bool) (seek, sw float64) {
	cyl, surf := l.CylSurf(t)
	if cyl != h.Cyl {
		seek = l.m.SeekMs(cyl - h.Cyl)
	}
	if surf != h.Surf {
		sw = max(l.m.HeadSwitchMs-seek, 0)
	}
	if write && (cyl != h.Cyl || surf != h.Surf) {
		if cyl != h.Cyl {
			seek += l.m.WriteSettleMs
		} else {
			sw += l.m.WriteSettleMs
		}
	}
	return seek, sw
}

// MoveMs is the time to move the head from h onto track t, before any
// rotational wait: max(seek, head switch), plus write settle for a write
// if the head moves. It is the part of PositionMs that does not depend on
// the clock, and a lower bound of PositionMs for every block of track t.
func (l *Layout) MoveMs(h Head, t int, write bool) float64 {
	seek, sw := l.moveMs(h, l.clampTrack(t), write)
	return seek + sw
}

// position computes the move to block b when positioning starts at startMs.
func (l *Layout) position(h Head, startMs float64, b int64, write bool) move {
	b = l.clampBlock(b)
	var mv move
	mv.seek, mv.sw = l.moveMs(h, l.TrackOf(b), write)
	mv.rot = l.rotWaitMs(startMs+mv.seek+mv.sw, l.BlockPhase(b))
	return mv
}

// PositionMs is the time from startMs (positioning starts after the
// controller overhead) until the start of block b passes under the head:
// seek or head switch (+ settle for a write) and rotational wait. It equals
// Service(h, startMs-overhead, b, 1, write).LocateMs() exactly.
func (l *Layout) PositionMs(h Head, startMs float64, b int64, write bool) float64 {
	return l.position(h, startMs, b, write).total()
}

// Service computes one request for n contiguous blocks starting at block
// b, issued at simulated time nowMs with the head at h: controller
// overhead, then positioning (PositionMs), then transfer; crossing to the
// next track inside the request costs a head switch or a one-cylinder seek
// (+ settle for a write) plus the rotational wait the skew leaves. It
// returns the breakdown and the head's position at the end. A request
// running past the layout's end is cut at the end; n < 1 positions only.
func (l *Layout) Service(h Head, nowMs float64, b int64, n int, write bool) (Access, Head) {
	return l.ServiceTail(h, nowMs, b, n, 0, write)
}

// ServiceTail is Service for a request whose last block is transferred
// only in part: its first tail sectors (a sector-sized log entry after
// whole data blocks). tail <= 0, or tail at least the block's sectors,
// transfers the whole block.
func (l *Layout) ServiceTail(h Head, nowMs float64, b int64, n, tail int, write bool) (Access, Head) {
	var a Access
	a.OverheadMs = l.m.ReadOverheadMs
	if write {
		a.OverheadMs = l.m.WriteOverheadMs
	}
	b = l.clampBlock(b)
	t := nowMs + a.OverheadMs
	for {
		mv := l.position(h, t, b, write)
		a.SeekMs += mv.seek
		a.HeadSwitchMs += mv.sw
		a.RotationMs += mv.rot
		t += mv.total()
		track := l.TrackOf(b)
		h.Cyl, h.Surf = l.CylSurf(track)
		k := min(int64(max(n, 0)), l.TrackStart(track)+int64(l.TrackBlocks(track))-b)
		xfer := float64(k) * l.BlockMs(track)
		if tail > 0 && tail < l.spb && k > 0 && int64(n) == k {
			// The request ends in this track, inside its last block.
			xfer -= l.BlockMs(track) * float64(l.spb-tail) / float64(l.spb)
		}
		a.TransferMs += xfer
		t += xfer
		n -= int(k)
		b += k
		if n <= 0 || b >= l.numBlocks {
			return a, h
		}
	}
}
