package place

import (
	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

var _ Policy = (*InPlace)(nil)

// InPlace is update in place (FFS-like), the regular disk the
// virtual-log paper compares against: a block that replaces an old copy
// is written over that copy (its home: the address is already in use and
// stays so) and every other block goes to the first free address at or
// after its hint, the previous block, or the window's start, in address
// order. No head position is consulted, as on a regular disk under FFS.
type InPlace struct {
	d     Disk
	homes int64 // blocks rewritten over their old copy
}

// NewInPlace places on d in place.
func NewInPlace(d Disk) *InPlace { return &InPlace{d: d} }

// Place puts r's blocks at their homes or the first free addresses after
// their hints.
func (p *InPlace) Place(_ At, r Request) ([]Run, error) {
	d, n, w, near, rep := p.d, r.N, r.Window, r.Near, r.Replaces
	addrs := make([]int64, n)
	var fresh []int64
	homed := map[int64]bool{}
	undo := func() {
		for _, b := range fresh {
			d.Alloc.MarkFree(b)
		}
	}
	for i := 0; i < n; i++ {
		if rep != nil && rep[i] && near[i] != 0 && p.homeOK(int64(near[i]), homed) {
			addrs[i] = int64(near[i])
			homed[addrs[i]] = true
			continue
		}
		b := d.firstFree(p.from(i, w, near, addrs), w)
		if b < 0 {
			undo()
			return nil, noSpace("placing %d blocks in place", n)
		}
		d.Alloc.MarkUsed(b)
		fresh = append(fresh, b)
		addrs[i] = b
	}
	p.homes += int64(len(homed))
	return addrRuns(addrs), nil
}

// homeOK says whether b may be rewritten in place: in use (the client's old
// copy), not a volume block, not already taken by this call.
func (p *InPlace) homeOK(b int64, homed map[int64]bool) bool {
	return b >= ondisk.FixedBlocks && b < p.d.blocks() && p.d.Alloc.IsUsed(b) && !homed[b]
}

// from is where the search for block i's free address starts.
func (p *InPlace) from(i int, w alloc.Window, near []uint64, addrs []int64) int64 {
	l := p.d.Layout
	switch {
	case near != nil && near[i] != 0:
		return int64(near[i])
	case i > 0:
		return addrs[i-1] + 1
	case w.N > 0 && w.N < l.NumTracks():
		return l.TrackStart(w.Start)
	}
	return ondisk.FixedBlocks
}
