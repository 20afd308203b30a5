package place

import "github.com/vlfs/vlfs/vld/alloc"

var _ Policy = (*Eager)(nil)

// Eager is eager writing, the VLD's own placement (docs/vld.md): every
// run goes where the head reaches free space soonest, as the head model
// prices it. It ignores hints.
type Eager struct {
	d Disk
}

// NewEager places on d eagerly.
func NewEager(d Disk) *Eager { return &Eager{d: d} }

// Place puts r's blocks in as few contiguous runs as possible, each
// placed where the head reaches free space soonest.
func (e *Eager) Place(at At, r Request) ([]Run, error) {
	d := e.d
	var runs []Run
	now := at.NowMs
	h := at.Head
	for left := r.N; left > 0; {
		k := min(left, d.MaxTrack)
		// Lengths no track holds would fail after a search: skip them (the
		// same halving, so the same choice; on a full disk most lengths
		// tried are such).
		for mr := d.Alloc.MaxRun(); k > mr && k > 1; {
			k /= 2
		}
		c := alloc.NoChoice
		for ; k > 0; k /= 2 {
			if c = d.Head.Choose(d.Alloc, h, now+d.overheadMs(), k, r.Window); c.Block >= 0 {
				break
			}
		}
		if c.Block < 0 {
			freeRuns(d.Alloc, runs) // undo: nothing was written
			return nil, noSpace("placing %d blocks", r.N)
		}
		for i := 0; i < k; i++ {
			d.Alloc.MarkUsed(c.Block + int64(i))
		}
		t := d.Layout.TrackOf(c.Block)
		d.Alloc.NoteWrite(t)
		runs = append(runs, Run{Start: c.Block, N: k})
		// Later runs of the same request are searched from where this one
		// ends, as the head will be there.
		h.Cyl, h.Surf = d.Layout.CylSurf(t)
		now += c.Cost + float64(k)*d.Layout.BlockMs(t)
		left -= k
	}
	return runs, nil
}
