package vld

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// This file holds the checkpoint's extra log tracks: tracks outside the log
// window where virtual-log entries may also go until the next checkpoint.
//
// A synchronous write puts its data and its entries in one request when
// the track the fill policy is filling lies where entries may go; outside,
// it costs two. With the window alone (1/16 of the disk), the empty tracks
// the compactor makes elsewhere serve a burst's data but not its entries,
// and the window soon holds no empty track at all. So each checkpoint also
// lists, one by one, up to extraPerWindow times the window's size in
// tracks: first the empty tracks outside the window, then the tracks the
// compactor will most likely empty next (most free blocks per block in
// use, its cost-benefit order). The compactor ranks these tracks with the
// window's (TrackSpace.InLogWindow), so what it empties is usable for
// entries at once, without another checkpoint. The tail scan after an
// unclean stop reads the window and these tracks (docs/vld.md).

const (
	// extraPerWindow bounds the extra tracks at this many times the
	// window's tracks (and by what the checkpoint slot can list).
	extraPerWindow = 2
	// registerEmpty is how many empty tracks outside the window and the
	// extra tracks make a commit take a checkpoint to list them, when no
	// track where entries may go is empty.
	registerEmpty = 4
	// minEntriesBeforeRegister keeps such checkpoints at least this many
	// entries apart.
	minEntriesBeforeRegister = 8
)

// SetExtraLogTracks turns the extra log tracks on or off from the next
// checkpoint on. An idle-time compactor turns them on at its first step
// (compactor.TrackLister):
// without one, empty tracks are rare at high utilisation, and listing the
// tracks with the most free space only moves entries away from the head
// (bench updates at 80 %, st19101: 0.84 -> 0.96 ms per update, simulated).
// Recovery reads whatever the durable checkpoint lists, either way.
func (v *Volume) SetExtraLogTracks(on bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.log.listExtra = on
}

// extraSet turns a checkpoint's extra tracks into a per-track set (nil:
// none). A track outside the disk means the checkpoint is corrupt.
func extraSet(ck *ondisk.Checkpoint, ntracks int) ([]bool, error) {
	if len(ck.Extra) == 0 {
		return nil, nil
	}
	set := make([]bool, ntracks)
	for _, t := range ck.Extra {
		if int64(t) >= int64(ntracks) {
			return nil, fmt.Errorf("checkpoint %d lists extra log track %d of %d: %w", ck.Seq, t, ntracks, ErrCorrupt)
		}
		set[t] = true
	}
	return set, nil
}

// extraTracksLocked chooses the extra tracks of a checkpoint whose window
// is w and which names dirBlocks directory blocks.
func (v *Volume) extraTracksLocked(w alloc.Window, dirBlocks int) []uint32 {
	nt := v.layout.NumTracks()
	limit := min(extraPerWindow*w.N, ondisk.MaxExtraTracks(v.bs, dirBlocks), nt-w.N)
	if limit <= 0 || !v.log.listExtra {
		return nil
	}
	a := v.alloc
	var empty, partial []int
	for i := 0; i < nt-w.N; i++ {
		t := (w.Start + w.N + i) % nt // nearest after the window first
		switch {
		case a.TrackCap(t) == 0 || a.TrackFree(t) == 0:
		case a.TrackFree(t) == a.TrackCap(t):
			empty = append(empty, t)
		default:
			partial = append(partial, t)
		}
	}
	out := make([]uint32, 0, limit)
	for _, t := range empty[:min(len(empty), limit)] {
		out = append(out, uint32(t))
	}
	if len(out) == limit {
		return out
	}
	// The compactor's cost-benefit order: free/used, compared exactly.
	slices.SortStableFunc(partial, func(x, y int) int {
		l := int64(a.TrackFree(x)) * int64(a.TrackCap(y)-a.TrackFree(y))
		r := int64(a.TrackFree(y)) * int64(a.TrackCap(x)-a.TrackFree(x))
		switch {
		case l > r:
			return -1
		case l < r:
			return 1
		}
		return 0
	})
	for _, t := range partial[:min(len(partial), limit-len(out))] {
		out = append(out, uint32(t))
	}
	return out
}

// wantRegisterLocked reports whether a commit should take a checkpoint to
// list empty tracks as extra log tracks: no track where entries may go is
// empty, and enough empty tracks lie elsewhere.
func (v *Volume) wantRegisterLocked() bool {
	if !v.log.listExtra || v.alloc.EmptyTracks() < registerEmpty || v.log.sinceCkpt < minEntriesBeforeRegister {
		return false
	}
	w := v.logWindow()
	nt := v.layout.NumTracks()
	if w.N == 0 || w.N >= nt {
		return false
	}
	isEmpty := func(t int) bool { return v.alloc.TrackCap(t) > 0 && v.alloc.TrackFree(t) == v.alloc.TrackCap(t) }
	for i := 0; i < w.N; i++ {
		if isEmpty((w.Start + i) % nt) {
			return false
		}
	}
	for _, t := range v.log.ckpt.Extra {
		if isEmpty(int(t)) {
			return false
		}
	}
	return true
}

// extraRanges turns the extra tracks outside w into block ranges, merging
// neighbours, for the tail scan.
func (v *Volume) extraRanges(extra []uint32, w alloc.Window) [][2]int64 {
	l := v.layout
	nt := l.NumTracks()
	ts := slices.Clone(extra)
	slices.Sort(ts)
	var out [][2]int64
	for _, t := range slices.Compact(ts) {
		if int64(t) >= int64(nt) || w.Contains(int(t), nt) {
			continue
		}
		lo, hi := l.TrackStart(int(t)), l.TrackStart(int(t))+int64(l.TrackBlocks(int(t)))
		if k := len(out) - 1; k >= 0 && out[k][1] == lo {
			out[k][1] = hi
			continue
		}
		out = append(out, [2]int64{lo, hi})
	}
	return out
}

// SetAvoidEmpty makes placement prefer holes to empty tracks (greedy, no
// fill policy) while on, falling back to empty tracks only when no hole
// fits: for the commits of an idle-time compactor, whose holder rewrites
// would otherwise use up the empty tracks it is making.
func (v *Volume) SetAvoidEmpty(on bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.alloc.SetAvoidEmpty(on)
}
