package place

import (
	"math"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

var _ Policy = (*Range)(nil)

// Range placement (docs/ranges.md): the volume acts as a file system
// issuing range writes to a disk that schedules them by HRS. Each client
// write is cut into chains of blocks that belong together (same hint, or
// no hint after the first); a chain is one multi-block range write, so its
// blocks stay consecutive and in order. The chain's range is:
//   - with a hint h (the block's old copy, the file's previous block or its
//     inode's block): exactly after h if free, so a file written
//     sequentially, one write-out after another, stays sequential; else the
//     free blocks of the track's worth after h (gaps shorter than a track);
//     else within one cylinder's worth either side of h;
//   - without one (a new file; inode and inode-map blocks): free blocks
//     within a cylinder either side of the head, with a cylinder's worth
//     free before and after, so the new file can grow in place; else any;
//
// and the head model picks the start the head reaches first (HRS for the
// simulated head: rangedisk.Choose). When no range holds the chain it
// falls back to eager placement, halving the run as Eager does.
type Range struct {
	d     Disk
	tails rangeTails // growth rooms (range_hold.go)
}

// NewRange places on d by range writes.
func NewRange(d Disk) *Range { return &Range{d: d} }

// Place places r's blocks by range writes near their hints. Without hints
// (r.Near nil: log entries, checkpoints, inode blocks, "anywhere nearby")
// the blocks are placed eagerly. Either way the growth rooms of other
// chains are held (range_hold.go) unless nothing fits with them.
func (p *Range) Place(at At, r Request) ([]Run, error) {
	near, rep := r.Near, r.Replaces
	release := p.holdRooms(int64(hintAt(near, 0)) + 1)
	runs, err := p.placeChains(at, r.N, r.Window, near, rep)
	release()
	if err != nil {
		runs, err = p.placeChains(at, r.N, r.Window, near, rep)
	}
	if err != nil {
		return nil, err
	}
	if near != nil {
		for _, run := range runs {
			p.tails.note(run.Start, run.Start+int64(run.N))
		}
	}
	return runs, nil
}

// StartCost is the positioning time (ms) the head needs, at the moment
// at, to reach where Place would put the first chain of a write of n
// blocks with hints near and rep; +Inf when nothing fits. The volume
// compares queued range writes by it (vld/sched_range.go).
func (p *Range) StartCost(at At, near []uint64, rep []bool, n int) float64 {
	hint := hintAt(near, 0)
	if hint == 0 {
		near, rep = nil, nil
	}
	k := min(chainLen(near, rep, 0, n), p.d.MaxTrack)
	_, cost, ok := p.part(hint, k, at.Head, at.NowMs, alloc.Window{}, near == nil)
	if !ok {
		return math.Inf(1)
	}
	return cost
}

// placeChains is Place with whatever holds are in force.
func (p *Range) placeChains(at At, n int, w alloc.Window, near []uint64, rep []bool) ([]Run, error) {
	d := p.d
	var runs []Run
	now, h := at.NowMs, at.Head
	for i := 0; i < n; {
		hint := hintAt(near, i)
		for k := chainLen(near, rep, i, n); k > 0; {
			r, cost, ok := p.part(hint, min(k, d.MaxTrack), h, now, w, near == nil)
			if !ok {
				freeRuns(d.Alloc, runs)
				return nil, noSpace("placing %d blocks by range", n)
			}
			for j := range r.N {
				d.Alloc.MarkUsed(r.Start + int64(j))
			}
			t := d.Layout.TrackOf(r.Start)
			d.Alloc.NoteWrite(t)
			runs = append(runs, r)
			h.Cyl, h.Surf = d.Layout.CylSurf(t)
			now += cost + float64(r.N)*d.Layout.BlockMs(t)
			if near != nil {
				hint = uint64(r.Start + int64(r.N) - 1) // the rest of the chain follows on
			}
			i, k = i+r.N, k-r.N
		}
	}
	return runs, nil
}

// part places up to k blocks of a chain: exactly after the hint when
// those blocks are free (up to the end of that track: runs never span
// tracks, and the next part continues at the next track's first block,
// which is the next address), else by HRS in the chain's ranges, else
// eagerly (at once when eager), halving k until something fits; ok is
// false when nothing does.
func (p *Range) part(hint uint64, k int, h disk.Head, now float64, w alloc.Window, eager bool) (Run, float64, bool) {
	d := p.d
	if !eager {
		if r, cost, ok := p.exactAfter(hint, k, h, now, w); ok {
			return r, cost, true
		}
		if r, cost, ok := p.choose(hint, k, h, now, w); ok {
			return r, cost, true
		}
	}
	for ; k > 0; k /= 2 {
		if c := d.Head.Choose(d.Alloc, h, now+d.overheadMs(), k, w); c.Block >= 0 {
			return Run{Start: c.Block, N: k}, c.Cost, true
		}
	}
	return Run{}, 0, false
}

// exactAfter is the range of one target: the blocks right after hint,
// as many of k as its track holds, if all are free and in window w.
func (p *Range) exactAfter(hint uint64, k int, h disk.Head, now float64, w alloc.Window) (Run, float64, bool) {
	d := p.d
	a := int64(hint) + 1
	if hint == 0 || a < ondisk.FixedBlocks || a >= d.blocks() {
		return Run{}, 0, false
	}
	t := d.Layout.TrackOf(a)
	k = int(min(int64(k), d.Layout.TrackStart(t)+int64(d.Layout.TrackBlocks(t))-a))
	if !w.Contains(t, d.Layout.NumTracks()) || !d.Alloc.FreeRun(a, k) {
		return Run{}, 0, false
	}
	return Run{Start: a, N: k}, d.Head.RunCost(a, k, h, now+d.overheadMs()), true
}

// chainLen counts the blocks from i that go as one range write: the next
// block joins while it has the same hint as the one before (the file
// system gives the blocks that follow on from one another in a file the
// hint of the first), or both replace old copies that were consecutive (a
// file rewritten in order stays in order).
func chainLen(near []uint64, rep []bool, i, n int) int {
	if near == nil {
		return n - i
	}
	j := i + 1
	for j < n && (near[j] == near[j-1] || rep != nil && rep[j] && rep[j-1] && near[j] == near[j-1]+1) {
		j++
	}
	return j - i
}

func hintAt(near []uint64, i int) uint64 {
	if near == nil {
		return 0
	}
	return near[i]
}

// choose builds the chain's ranges, nearest first, and lets the head
// model choose in the first that can hold k blocks (HRS for the simulated
// head, the profile for a profiled one: vld/head_range.go); ok is false
// when none can.
func (p *Range) choose(hint uint64, k int, h disk.Head, now float64, w alloc.Window) (Run, float64, bool) {
	d := p.d
	for _, s := range p.spans(hint, k, h) {
		ext := p.freeExtents(s.from, s.to, k, w, s.room)
		if len(ext) == 0 {
			continue
		}
		if b, cost, ok := d.Head.ChooseInRanges(ext, k, h, now+d.overheadMs()); ok {
			return Run{Start: b, N: k}, cost, true
		}
	}
	return Run{}, 0, false
}

// rangeSpan is one candidate region [from, to); room > 0 keeps a chain
// that many blocks clear of the used block before it.
type rangeSpan struct {
	from, to int64
	room     int64
}

// spans lists a chain's regions in order of preference. With a hint
// (exactly after it was tried first): a track's worth after it, then a
// cylinder's worth either side. Without one (a new file, or metadata):
// within a cylinder of the head, a cylinder's worth of blocks clear of any
// used block, so that the file it starts can grow in place (ext2's
// preallocation, as the range-writes paper keeps); failing that, anywhere
// within a cylinder of the head.
func (p *Range) spans(hint uint64, k int, h disk.Head) []rangeSpan {
	l, nb := p.d.Layout, p.d.blocks()
	t := l.TrackOfCylSurf(h.Cyl, 0)
	if hint != 0 && int64(hint) < nb {
		t = l.TrackOf(int64(hint))
	}
	tb := int64(l.TrackBlocks(t))
	cylBlocks := tb * int64(l.Model().Surfaces)
	if hint != 0 && int64(hint) < nb {
		a := int64(hint) + 1
		return []rangeSpan{{a, a + tb + int64(k), 0}, {a - cylBlocks, a + cylBlocks, 0}}
	}
	first := l.TrackStart(l.TrackOfCylSurf(max(h.Cyl-1, 0), 0))
	end := nb
	if last := l.TrackOfCylSurf(h.Cyl+2, 0); last < l.NumTracks() {
		end = l.TrackStart(last)
	}
	return []rangeSpan{{first, end, cylBlocks}, {first, end, 0}}
}

// freeExtents lists the free runs of at least k blocks in [from, to)
// that stay on one track inside window w (the allocator's runs never span
// tracks, and neither do the volume's writes). room > 0 trims each run to
// start that many blocks after a used block, with as many free ahead.
func (p *Range) freeExtents(from, to int64, k int, w alloc.Window, room int64) []rangedisk.Extent {
	a, l, nb := p.d.Alloc, p.d.Layout, p.d.blocks()
	from, to = max(from, ondisk.FixedBlocks), min(to, nb)
	var out []rangedisk.Extent
	for b := from; b < to; {
		b = a.NextFree(b, to)
		if b < 0 {
			break
		}
		t := l.TrackOf(b)
		end := min(to, l.TrackStart(t)+int64(l.TrackBlocks(t)))
		e := b
		for e < end && !a.IsUsed(e) {
			e++
		}
		s := b
		if room > 0 {
			s = p.clearOfUsed(b, room)
			if s+room > nb || !a.FreeRun(s, int(room)) {
				s = e // no room to grow ahead either
			}
		}
		if e-s >= int64(k) && w.Contains(t, l.NumTracks()) {
			out = append(out, rangedisk.Extent{Begin: s, End: e})
		}
		b = e
	}
	return out
}

// clearOfUsed is the first block at or after b with room free blocks
// before it (the volume's fixed blocks count as used).
func (p *Range) clearOfUsed(b, room int64) int64 {
	for q := b - 1; q >= max(b-room, 0); q-- {
		if q < ondisk.FixedBlocks || p.d.Alloc.IsUsed(q) {
			return q + 1 + room
		}
	}
	return b
}
