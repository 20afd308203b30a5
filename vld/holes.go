package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/alloc"
)

// HoleOpts qualify a hole-plugging write (PlugHoles).
type HoleOpts struct {
	// Avoid is a track never written to: the one being emptied. -1 for none.
	Avoid int
	// MaxFree > 0 restricts the writes to tracks with at most this many
	// free blocks.
	MaxFree int32
}

// PlugHoles writes data eagerly into holes, the way a compactor copies
// live blocks out of a track it empties (hole-plugging, section 4.2 of the
// virtual-log paper): each block goes to the free block the head reaches
// soonest on a track that already holds data, never to an empty track and
// never to o.Avoid. Blocks keep their order; a block whose successor on
// the track is also free shares its request. It returns where each block
// went. Like WriteBlocks, nothing is durable until the next Commit.
//
// It is served at once, outside the scheduler's queues, and fails with
// ErrBusy if foreground requests are waiting, and with ErrNoSpace if
// holes run out or the write would eat into the reserve (nothing is then
// written).
func (v *Volume) PlugHoles(data [][]byte, o HoleOpts) ([]Addr, error) {
	if len(data) == 0 {
		return nil, nil
	}
	for i, d := range data {
		if len(d) != v.bs {
			return nil, fmt.Errorf("plug holes: block %d is %d bytes, block size %d: %w", i, len(d), v.bs, ErrInvalid)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return nil, err
	}
	if v.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if v.sched.Queued() > 0 {
		return nil, fmt.Errorf("plug holes: %w", ErrBusy)
	}
	if v.alloc.Free()-int64(len(data)) < v.reserve {
		return nil, fmt.Errorf("plug holes: %d blocks with %d free (%d reserved): %w", len(data), v.alloc.Free(), v.reserve, ErrNoSpace)
	}
	runs, err := v.placeHolesLocked(len(data), alloc.HoleFilter{Avoid: o.Avoid, MaxFree: o.MaxFree})
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
	return addrs, nil
}

// placeHolesLocked chooses and marks used n holes, in order, as runs: the
// block right after the previous one when it is free (no positioning at
// all), otherwise the hole the head reaches soonest.
func (v *Volume) placeHolesLocked(n int, f alloc.HoleFilter) ([]run, error) {
	var runs []run
	now, h := v.m.now, v.m.head
	for i := 0; i < n; i++ {
		if k := len(runs); k > 0 {
			r := &runs[k-1]
			t := v.layout.TrackOf(r.Start)
			next := r.Start + int64(r.N)
			if next < v.layout.TrackStart(t)+int64(v.alloc.TrackCap(t)) && !v.alloc.IsUsed(next) {
				v.alloc.MarkUsed(next)
				r.N++
				now += v.layout.BlockMs(t)
				continue
			}
		}
		c := v.alloc.ChooseHole(h, now+v.m.overheadMs(true), f)
		if c.Block < 0 {
			for _, r := range runs {
				for j := 0; j < r.N; j++ {
					v.alloc.MarkFree(r.Start + int64(j))
				}
			}
			return nil, fmt.Errorf("plugging %d holes: no hole left: %w", n, ErrNoSpace)
		}
		v.alloc.MarkUsed(c.Block)
		runs = append(runs, run{Start: c.Block, N: 1})
		t := v.layout.TrackOf(c.Block)
		h.Cyl, h.Surf = v.layout.CylSurf(t)
		now += v.m.overheadMs(true) + c.Cost + v.layout.BlockMs(t)
	}
	return runs, nil
}
