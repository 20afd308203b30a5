package vld

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vld/sched"
)

// Placement is where a volume puts the blocks a client writes: the three
// designs the virtual-log paper compares (docs/placement.md). It is fixed
// at format time and kept in the superblock, so every open of the volume
// places the same way. A LogicalDisk keeps its own copy in its app data.
type Placement uint8

// Placements. Their values are stored on disk: never change them.
const (
	// PlaceEager writes every block at the free location the head reaches
	// first (the VLD).
	PlaceEager Placement = iota
	// PlaceInPlace rewrites a block over the copy it replaces and puts a
	// new block at the first free address at or after its hint (FFS-like):
	// the regular disk the paper compares against. A LogicalDisk gives
	// every logical block a fixed home instead.
	PlaceInPlace
	// PlaceLFS appends blocks contiguously in 512 KiB segments, as a
	// log-structured file system (lfs_place.go).
	PlaceLFS
	// PlaceRange places a client write's blocks by range writes near their
	// hints (the file's previous block or its inode), chosen by HRS from
	// the head position (place_range.go, docs/ranges.md). Writes without
	// any hint (inode blocks, the log) are placed eagerly.
	PlaceRange
)

// placeMax is the largest valid Placement.
const placeMax = PlaceRange

// ParsePlacement reads "eager", "inplace", "lfs" or "range".
func ParsePlacement(s string) (Placement, error) {
	switch s {
	case "eager", "":
		return PlaceEager, nil
	case "inplace":
		return PlaceInPlace, nil
	case "lfs":
		return PlaceLFS, nil
	case "range":
		return PlaceRange, nil
	}
	return 0, fmt.Errorf("placement %q: want eager, inplace, lfs or range: %w", s, ErrInvalid)
}

func (p Placement) String() string {
	switch p {
	case PlaceInPlace:
		return "inplace"
	case PlaceLFS:
		return "lfs"
	case PlaceRange:
		return "range"
	}
	return "eager"
}

// placeState is a volume's placement policy and the hints of the write
// being placed. Guarded by Volume.mu.
type placeState struct {
	policy Placement
	// near and replaces are WriteOpts' hints for the next placeLocked call
	// of a client write; taken (and cleared) by it, so the log entries and
	// directory blocks the same call may place see none.
	near     []Addr
	replaces []bool
	tails    rangeTails // PlaceRange only: growth rooms (place_range_hold.go)
	// fifoRanges serves queued range writes in arrival order, as before
	// place_range_queue.go (tests compare the two).
	fifoRanges bool
	lfs        *lfsLog // PlaceLFS only
	homes      int64   // blocks rewritten over their old copy (in place)
}

// initPlacement reads the policy from the superblock. Policies other than
// eager serve requests one at a time (FIFO): a queued write carries no
// hints, and the baselines are measured without batching.
func (v *Volume) initPlacement() error {
	p := Placement(v.sb.Placement)
	if p > placeMax {
		return fmt.Errorf("open: superblock placement %d: %w", p, ErrCorrupt)
	}
	v.place.policy = p
	if p == PlaceEager || p == PlaceInPlace && v.opts.BatchInPlace {
		return nil
	}
	v.sched = sched.New[*request](sched.Batch{}, 0)
	if p == PlaceLFS {
		v.place.lfs = newLFSLog(v)
	}
	return nil
}

// Placement is how the volume places client writes.
func (v *Volume) Placement() Placement { return v.place.policy }

// ReadOnly reports whether the volume was opened read-only
// (Options.ReadOnly): a file system on it must not change anything.
func (v *Volume) ReadOnly() bool { return v.opts.ReadOnly }

// hintLocked records o's hints for the placement of the next n blocks.
// Hints of the wrong length are ignored.
func (v *Volume) hintLocked(o WriteOpts, n int) {
	v.place.near, v.place.replaces = nil, nil
	if len(o.Near) == n {
		v.place.near = o.Near
	}
	if len(o.Replaces) == n && v.place.near != nil {
		v.place.replaces = o.Replaces
	}
}

// placeByPolicyLocked is placeLocked's dispatch: ok is false for eager
// placement, which placeLocked does itself. w restricts the search (the log
// window) as for eager placement.
func (v *Volume) placeByPolicyLocked(n int, w alloc.Window) (runs []run, ok bool, err error) {
	near, rep := v.place.near, v.place.replaces
	v.place.near, v.place.replaces = nil, nil
	switch v.place.policy {
	case PlaceRange:
		if !slices.ContainsFunc(near, func(a Addr) bool { return a != 0 }) {
			near, rep = nil, nil // log entries, checkpoints, inode blocks
		}
		runs, err = v.placeRangeLocked(n, w, near, rep)
		return runs, true, err
	case PlaceInPlace:
		runs, err = v.placeInPlaceLocked(n, w, near, rep)
		return runs, true, err
	case PlaceLFS:
		runs, err = v.place.lfs.place(n, w)
		return runs, true, err
	}
	return nil, false, nil
}

// placeInPlaceLocked puts a block that replaces an old copy over that copy
// (its home: the address is already in use and stays so) and every other
// block at the first free address at or after its hint, the previous
// block, or the window's start, in address order: no head position is
// consulted, as on a regular disk under FFS.
func (v *Volume) placeInPlaceLocked(n int, w alloc.Window, near []Addr, rep []bool) ([]run, error) {
	addrs := make([]int64, n)
	var fresh []int64
	homed := map[int64]bool{}
	undo := func() {
		for _, b := range fresh {
			v.alloc.MarkFree(b)
		}
	}
	for i := 0; i < n; i++ {
		if rep != nil && rep[i] && near[i] != 0 && v.homeOK(int64(near[i]), homed) {
			addrs[i] = int64(near[i])
			homed[addrs[i]] = true
			continue
		}
		b := v.firstFreeLocked(v.inPlaceFrom(i, w, near, addrs), w)
		if b < 0 {
			undo()
			return nil, fmt.Errorf("placing %d blocks in place: %w", n, ErrNoSpace)
		}
		v.alloc.MarkUsed(b)
		fresh = append(fresh, b)
		addrs[i] = b
	}
	v.place.homes += int64(len(homed))
	return addrRuns(addrs), nil
}

// homeOK says whether b may be rewritten in place: in use (the client's old
// copy), not a volume block, not already taken by this call.
func (v *Volume) homeOK(b int64, homed map[int64]bool) bool {
	return b >= ondisk.FixedBlocks && b < int64(v.sb.NumBlocks) && v.alloc.IsUsed(b) && !homed[b]
}

// inPlaceFrom is where the search for block i's free address starts.
func (v *Volume) inPlaceFrom(i int, w alloc.Window, near []Addr, addrs []int64) int64 {
	switch {
	case near != nil && near[i] != 0:
		return int64(near[i])
	case i > 0:
		return addrs[i-1] + 1
	case w.N > 0 && w.N < v.layout.NumTracks():
		return v.layout.TrackStart(w.Start)
	}
	return ondisk.FixedBlocks
}

// firstFreeLocked returns the first free block at or after from in address
// order, wrapping once, inside window w; -1 if there is none.
func (v *Volume) firstFreeLocked(from int64, w alloc.Window) int64 {
	nb := int64(v.sb.NumBlocks)
	from = min(max(from, ondisk.FixedBlocks), nb-1)
	for _, span := range [][2]int64{{from, nb}, {ondisk.FixedBlocks, from}} {
		for b := span[0]; b < span[1]; {
			b = v.alloc.NextFree(b, span[1])
			if b < 0 {
				break
			}
			t := v.layout.TrackOf(b)
			if w.Contains(t, v.layout.NumTracks()) {
				return b
			}
			b = v.layout.TrackStart(t) + int64(v.layout.TrackBlocks(t))
		}
	}
	return -1
}

// addrRuns groups consecutive addresses into runs, in order.
func addrRuns(addrs []int64) []run {
	var runs []run
	for _, b := range addrs {
		if k := len(runs) - 1; k >= 0 && runs[k].start+int64(runs[k].n) == b {
			runs[k].n++
			continue
		}
		runs = append(runs, run{start: b, n: 1})
	}
	return runs
}

// oneRunLocked says whether WriteCommit writes n data blocks and k entries
// as one run in the log window: an in-place volume never does (its data has
// homes), a log always does (data and metadata share the segment), eager
// placement when that is cheaper.
func (v *Volume) oneRunLocked(n, k int) bool {
	switch v.place.policy {
	case PlaceInPlace:
		return false
	case PlaceLFS:
		return v.place.lfs.fitsWindow(n+k, v.logWindow())
	}
	return v.oneRunCheaperLocked(n, k)
}
