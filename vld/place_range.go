package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
)

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
// and rangedisk.Choose picks the start the head reaches first. When no
// range holds the chain it falls back to eager placement, halving the run
// as placeLocked does.

// placeRangeLocked places n blocks with hints near (nil or one per block)
// and rep (nil, or whether near[i] is block i's own old copy) inside
// window w, marks them used and returns the runs. With no hints (log
// entries, checkpoints, inode blocks: "anywhere nearby") the blocks are
// placed eagerly. Either way the growth rooms of other chains are held
// (place_range_hold.go) unless nothing fits with them.
func (v *Volume) placeRangeLocked(n int, w alloc.Window, near []Addr, rep []bool) ([]run, error) {
	release := v.holdRoomsLocked(int64(hintAt(near, 0)) + 1)
	runs, err := v.placeChainsLocked(n, w, near, rep)
	release()
	if err != nil {
		runs, err = v.placeChainsLocked(n, w, near, rep)
	}
	if err != nil {
		return nil, err
	}
	if near != nil {
		for _, r := range runs {
			v.place.tails.note(r.start, r.start+int64(r.n))
		}
	}
	return runs, nil
}

// placeChainsLocked is placeRangeLocked with whatever holds are in force.
func (v *Volume) placeChainsLocked(n int, w alloc.Window, near []Addr, rep []bool) ([]run, error) {
	var runs []run
	now, h := v.m.now, v.m.head
	undo := func() {
		for _, r := range runs {
			for i := range r.n {
				v.alloc.MarkFree(r.start + int64(i))
			}
		}
	}
	for i := 0; i < n; {
		hint := hintAt(near, i)
		for k := chainLen(near, rep, i, n); k > 0; {
			r, cost, err := v.rangePartLocked(hint, min(k, v.maxTrackBlocks()), h, now, w, near == nil)
			if err != nil {
				undo()
				return nil, fmt.Errorf("placing %d blocks by range: %w", n, err)
			}
			for j := range r.n {
				v.alloc.MarkUsed(r.start + int64(j))
			}
			t := v.layout.TrackOf(r.start)
			v.alloc.NoteWrite(t)
			runs = append(runs, r)
			h.Cyl, h.Surf = v.layout.CylSurf(t)
			now += cost + float64(r.n)*v.layout.BlockMs(t)
			if near != nil {
				hint = Addr(r.start + int64(r.n) - 1) // the rest of the chain follows on
			}
			i, k = i+r.n, k-r.n
		}
	}
	return runs, nil
}

// rangePartLocked places up to k blocks of a chain: exactly after the hint
// when those blocks are free (up to the end of that track: runs never span
// tracks, and the next part continues at the next track's first block,
// which is the next address), else by HRS in the chain's ranges, else
// eagerly (at once when eager), halving k until something fits.
func (v *Volume) rangePartLocked(hint Addr, k int, h disk.Head, now float64, w alloc.Window, eager bool) (run, float64, error) {
	if !eager {
		if r, cost, ok := v.exactAfterLocked(hint, k, h, now, w); ok {
			return r, cost, nil
		}
		if r, cost, ok := v.rangeChooseLocked(hint, k, h, now, w); ok {
			return r, cost, nil
		}
	}
	for ; k > 0; k /= 2 {
		if c := v.head.choose(v.alloc, h, now+v.m.overheadMs(true), k, w); c.Block >= 0 {
			return run{start: c.Block, n: k}, c.Cost, nil
		}
	}
	return run{}, 0, ErrNoSpace
}

// exactAfterLocked is the range of one target: the blocks right after hint,
// as many of k as its track holds, if all are free and in window w.
func (v *Volume) exactAfterLocked(hint Addr, k int, h disk.Head, now float64, w alloc.Window) (run, float64, bool) {
	a := int64(hint) + 1
	if hint == 0 || a < ondisk.FixedBlocks || a >= int64(v.sb.NumBlocks) {
		return run{}, 0, false
	}
	t := v.layout.TrackOf(a)
	k = int(min(int64(k), v.layout.TrackStart(t)+int64(v.layout.TrackBlocks(t))-a))
	if !w.Contains(t, v.layout.NumTracks()) || !v.alloc.FreeRun(a, k) {
		return run{}, 0, false
	}
	return run{start: a, n: k}, v.exactCostLocked(a, k, h, now+v.m.overheadMs(true)), true
}

// chainLen counts the blocks from i that go as one range write: the next
// block joins while it has the same hint as the one before (the file
// system gives the blocks that follow on from one another in a file the
// hint of the first), or both replace old copies that were consecutive (a
// file rewritten in order stays in order).
func chainLen(near []Addr, rep []bool, i, n int) int {
	if near == nil {
		return n - i
	}
	j := i + 1
	for j < n && (near[j] == near[j-1] || rep != nil && rep[j] && rep[j-1] && near[j] == near[j-1]+1) {
		j++
	}
	return j - i
}

func hintAt(near []Addr, i int) Addr {
	if near == nil {
		return 0
	}
	return near[i]
}

// rangeChooseLocked builds the chain's ranges, nearest first, and lets the
// head model choose in the first that can hold k blocks (HRS for the
// simulated head, the profile for a profiled one: place_range_head.go); ok
// is false when none can.
func (v *Volume) rangeChooseLocked(hint Addr, k int, h disk.Head, now float64, w alloc.Window) (run, float64, bool) {
	for _, s := range v.rangeSpansLocked(hint, k, h) {
		ext := v.freeExtentsLocked(s.from, s.to, k, w, s.room)
		if len(ext) == 0 {
			continue
		}
		if b, cost, ok := v.chooseInRangesLocked(ext, k, h, now+v.m.overheadMs(true)); ok {
			return run{start: b, n: k}, cost, true
		}
	}
	return run{}, 0, false
}

// rangeSpan is one candidate region [from, to); room > 0 keeps a chain
// that many blocks clear of the used block before it.
type rangeSpan struct {
	from, to int64
	room     int64
}

// rangeSpansLocked lists a chain's regions in order of preference. With a
// hint (exactly after it was tried first): a track's worth after it, then a cylinder's worth either side. Without one (a new
// file, or metadata): within a cylinder of the head, a cylinder's worth of
// blocks clear of any used block, so that the file it starts can grow in
// place (ext2's preallocation, as the range-writes paper keeps); failing
// that, anywhere within a cylinder of the head.
func (v *Volume) rangeSpansLocked(hint Addr, k int, h disk.Head) []rangeSpan {
	t := v.layout.TrackOfCylSurf(h.Cyl, 0)
	if hint != 0 && int64(hint) < int64(v.sb.NumBlocks) {
		t = v.layout.TrackOf(int64(hint))
	}
	tb := int64(v.layout.TrackBlocks(t))
	cylBlocks := tb * int64(v.model.Surfaces)
	if hint != 0 && int64(hint) < int64(v.sb.NumBlocks) {
		a := int64(hint) + 1
		return []rangeSpan{{a, a + tb + int64(k), 0}, {a - cylBlocks, a + cylBlocks, 0}}
	}
	first := v.layout.TrackStart(v.layout.TrackOfCylSurf(max(h.Cyl-1, 0), 0))
	end := int64(v.sb.NumBlocks)
	if last := v.layout.TrackOfCylSurf(h.Cyl+2, 0); last < v.layout.NumTracks() {
		end = v.layout.TrackStart(last)
	}
	return []rangeSpan{{first, end, cylBlocks}, {first, end, 0}}
}

// freeExtentsLocked lists the free runs of at least k blocks in [from, to)
// that stay on one track inside window w (the allocator's runs never span
// tracks, and neither do the volume's writes). room > 0 trims each run to
// start that many blocks after a used block, with as many free ahead.
func (v *Volume) freeExtentsLocked(from, to int64, k int, w alloc.Window, room int64) []Extent {
	nb := int64(v.sb.NumBlocks)
	from, to = max(from, ondisk.FixedBlocks), min(to, nb)
	var out []Extent
	for b := from; b < to; {
		b = v.alloc.NextFree(b, to)
		if b < 0 {
			break
		}
		t := v.layout.TrackOf(b)
		end := min(to, v.layout.TrackStart(t)+int64(v.layout.TrackBlocks(t)))
		e := b
		for e < end && !v.alloc.IsUsed(e) {
			e++
		}
		s := b
		if room > 0 {
			s = v.clearOfUsedLocked(b, room)
			if s+room > nb || !v.alloc.FreeRun(s, int(room)) {
				s = e // no room to grow ahead either
			}
		}
		if e-s >= int64(k) && w.Contains(t, v.layout.NumTracks()) {
			out = append(out, Extent{Begin: s, End: e})
		}
		b = e
	}
	return out
}

// clearOfUsedLocked is the first block at or after b with room free blocks
// before it (the volume's fixed blocks count as used).
func (v *Volume) clearOfUsedLocked(b, room int64) int64 {
	for p := b - 1; p >= max(b-room, 0); p-- {
		if p < ondisk.FixedBlocks || v.alloc.IsUsed(p) {
			return p + 1 + room
		}
	}
	return b
}
