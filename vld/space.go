package vld

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld/device"
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
	n := v.alloc.NumTracks()
	if cap(dst) < n {
		dst = make([]TrackSpace, n)
	}
	dst = dst[:n]
	w := v.logWindow()
	for t := range dst {
		dst[t] = TrackSpace{
			Free: v.alloc.TrackFree(t), Capacity: v.alloc.TrackCap(t),
			Filling: t == v.alloc.Active(), InLogWindow: w.N > 0 && w.Contains(t, n),
		}
	}
	return dst, v.alloc.EmptyTracks()
}

// EmptyTracks is the number of tracks holding nothing.
func (v *Volume) EmptyTracks() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.alloc.EmptyTracks()
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
	end := start + int64(v.alloc.TrackCap(t))
	out := make([]Addr, 0, v.alloc.TrackCap(t)-v.alloc.TrackFree(t))
	for b := start; b < end; b++ {
		if v.alloc.IsUsed(b) {
			out = append(out, Addr(b))
		}
	}
	return out, nil
}

// ReadRun reads len(bufs) consecutive blocks starting at a as one request
// (one controller overhead, one positioning, one transfer), served at once
// outside the scheduler's queues: it is meant for idle-time work, and
// fails with ErrBusy if foreground requests are waiting. Its callers read
// runs to move their live blocks away, after which the run is free space
// that writes will fill, so the run is dropped from the host's page cache
// at once: it was read as one large request, and a large cached folio
// makes every small write into it slower (scanRange says why).
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
	if v.sched.Queued() > 0 {
		return fmt.Errorf("read run at %d: %w", a, ErrBusy)
	}
	if err := v.drainLocked(); err != nil {
		return err
	}
	buf := make([]byte, n*v.bs)
	if _, err := v.dev.ReadAt(buf, int64(a)*int64(v.bs)); err != nil {
		return fmt.Errorf("vld: read blocks [%d, %d): %w", a, a+Addr(n), err)
	}
	device.DropCache(v.dev, int64(a)*int64(v.bs), int64(n)*int64(v.bs))
	for i := range bufs {
		copy(bufs[i], buf[i*v.bs:])
	}
	// Where the head lands in the run, read from there to its end and then
	// its beginning: two requests but no wait for the run's first block
	// (a zero-latency read, as a drive's firmware does for a whole track).
	j := v.readSplitLocked(int64(a), n)
	for _, r := range [][2]int64{{int64(a) + int64(j), int64(n - j)}, {int64(a), int64(j)}} {
		if r[1] == 0 {
			continue
		}
		v.stats.Sim.Add(v.m.service(r[0], int(r[1]), 0, false))
		v.stats.Reads++
	}
	v.stats.BlocksRead += int64(n)
	return nil
}

// readSplitLocked returns where to split a read of n blocks at b into
// [b+j, b+n) then [b, b+j), or 0 for one request: the split the disk model
// services soonest. Only runs on one track are split.
func (v *Volume) readSplitLocked(b int64, n int) int {
	l := v.layout
	if n < 2 || l.TrackOf(b) != l.TrackOf(b+int64(n)-1) {
		return 0
	}
	v.m.syncWall() // on the real clock the head has moved on since the last request
	one, _ := l.Service(v.m.head, v.m.now, b, n, false)
	best, bestMs := 0, one.TotalMs()
	for j := 1; j < n; j++ {
		first, h := l.Service(v.m.head, v.m.now, b+int64(j), n-j, false)
		second, _ := l.Service(h, v.m.now+first.TotalMs(), b, j, false)
		if ms := first.TotalMs() + second.TotalMs(); ms < bestMs-1e-9 {
			best, bestMs = j, ms
		}
	}
	return best
}
