package vld

import (
	"errors"
	"fmt"
)

// This file is the read-only view of free space that an idle-time
// compactor needs (package compactor), and the two requests it issues
// outside the scheduler's queues: a multi-block read of a track it is
// emptying, and hole-plugging writes (holes.go).

// ErrBusy is returned by idle-time requests (ReadRun, PlugHoles) while
// foreground requests wait in the scheduler: the foreground goes first.
var ErrBusy = errors.New("vld: foreground requests waiting")

// TrackSpace is one track's free space as the allocator counts it. A track
// is empty when Free == Capacity.
type TrackSpace struct {
	Free     int32 // free blocks
	Capacity int32 // whole blocks on the track
	// Filling marks the track the allocator is filling up to the fill
	// threshold (section 4.2): writes go there next.
	Filling bool
	// InLogWindow marks the tracks of the current log window and its
	// extra tracks, where virtual-log entries go: a synchronous write
	// places its data and its entries there as one run when it can
	// (WriteCommit), so empty tracks there serve it best.
	InLogWindow bool
}

// Empty reports whether the track holds nothing.
func (s TrackSpace) Empty() bool { return s.Capacity > 0 && s.Free == s.Capacity }

// NumTracks is the number of tracks holding blocks of the volume.
func (v *Volume) NumTracks() int { return v.layout.NumTracks() }

// TrackOf is the track holding block a.
func (v *Volume) TrackOf(a Addr) int { return v.layout.TrackOf(int64(a)) }

// Space copies every track's free space into dst (grown as needed; pass
// the previous result to avoid allocating) and returns it with the number
// of empty tracks. It costs O(tracks) and no simulated time.
func (v *Volume) Space(dst []TrackSpace) ([]TrackSpace, int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	n := len(v.alloc.trackFree)
	if cap(dst) < n {
		dst = make([]TrackSpace, n)
	}
	dst = dst[:n]
	w := v.logWindow()
	for t := range dst {
		dst[t] = TrackSpace{
			Free: v.alloc.trackFree[t], Capacity: v.alloc.trackCap[t],
			Filling: t == v.alloc.active, InLogWindow: w.n > 0 && w.contains(t, n),
		}
	}
	return dst, v.alloc.empty
}

// EmptyTracks is the number of tracks holding nothing.
func (v *Volume) EmptyTracks() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.alloc.empty
}

// UsedOnTrack lists the blocks in use on track t, in address order: the
// client's, the volume's own (log entries, checkpoint directory, fixed
// blocks) and blocks freed but not yet released by a commit.
func (v *Volume) UsedOnTrack(t int) ([]Addr, error) {
	if t < 0 || t >= v.layout.NumTracks() {
		return nil, fmt.Errorf("track %d outside [0, %d): %w", t, v.layout.NumTracks(), ErrInvalid)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	start := v.layout.TrackStart(t)
	end := start + int64(v.alloc.trackCap[t])
	out := make([]Addr, 0, v.alloc.trackCap[t]-v.alloc.trackFree[t])
	for b := start; b < end; b++ {
		if v.alloc.isUsed(b) {
			out = append(out, Addr(b))
		}
	}
	return out, nil
}

// ReadRun reads len(bufs) consecutive blocks starting at a as one request
// (one controller overhead, one positioning, one transfer), served at once
// outside the scheduler's queues: it is meant for idle-time work, and
// fails with ErrBusy if foreground requests are waiting.
func (v *Volume) ReadRun(a Addr, bufs [][]byte) error {
	n := len(bufs)
	if n == 0 {
		return nil
	}
	for i, b := range bufs {
		if len(b) != v.bs {
			return fmt.Errorf("read run at %d: buffer %d is %d bytes, block size %d: %w", a, i, len(b), v.bs, ErrInvalid)
		}
	}
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("read run: %w", err)
	}
	if err := v.checkAddr(a + Addr(n) - 1); err != nil {
		return fmt.Errorf("read run: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return err
	}
	if v.sched.queued() > 0 {
		return fmt.Errorf("read run at %d: %w", a, ErrBusy)
	}
	if err := v.drainLocked(); err != nil {
		return err
	}
	buf := make([]byte, n*v.bs)
	if _, err := v.dev.ReadAt(buf, int64(a)*int64(v.bs)); err != nil {
		return fmt.Errorf("vld: read blocks [%d, %d): %w", a, a+Addr(n), err)
	}
	for i := range bufs {
		copy(bufs[i], buf[i*v.bs:])
	}
	bd := v.m.service(int64(a), n, false)
	v.stats.Sim.Add(bd)
	v.stats.Reads++
	v.stats.BlocksRead += int64(n)
	return nil
}
