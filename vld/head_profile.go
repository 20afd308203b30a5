package vld

import (
	"fmt"
	"math"
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// profiledHead is the Bark-style head model (section 6 of the
// range-writes paper): it knows nothing of the geometry or of where the
// head is, only a measured table of write cost by skip distance and think
// time, and where and when the volume's last request ended. For a write it
// looks up the think time's row and takes the free run whose skip from the
// last request's end costs least. When the cheapest skip's block is free
// that is exactly Bark's "free block at that offset"; when it is not, the
// block just after it competes with every other free block in the
// profiled range, priced by the same row, instead of being taken blindly.
// Beyond the profiled range, or when nothing there fits, the first fitting
// free run after it in address order (wrapping) is taken.
//
// Cells are priced by their mean, not their median: the profile's
// repetitions start at random addresses, so a cell's samples mix writes
// that cross a track boundary (a head switch) with writes that do not, in
// the proportion the head model will meet them; the mean is the expected
// cost of that skip, which is what a head that cannot see the boundaries
// should minimise. Measured in docs/profiled-head.md: on the HP C2247A,
// whose tracks hold only 12 blocks, the median reaches 0.77 of the
// oracle's reduction at 50 % utilisation, the mean 0.83.
//
// A flat profile (profile.Summary.Flat: the cheapest skip saves no more
// than the noise) is priced flat: every cell costs the same, so the head
// takes the next free run after the last write, in address order. Its
// cells differ only by noise, and chasing that noise scatters writes and
// splits data from its map entry into two requests for nothing (measured
// on the host's file in docs/profiled-head.md).
//
// The simulated disk underneath still charges the real mechanical cost
// (mech.service), so the profile's quality shows in simulated time.
type profiledHead struct {
	m     *mech
	p     *profile.Profile
	table [][]float64 // [think row][skip in blocks]: predicted ms of a write
	blind []float64   // per skip: mean over think rows, for think times beyond the grid
	floor float64     // cheapest cell: controller overhead + transfer, no positioning
	flat  bool        // the profile is flat: every cell priced at its median
	plan  plannedRun
}

// plannedRun is the last choice made since the last request was served:
// a later run of the same request (startMs further on) follows it.
type plannedRun struct {
	valid   bool
	seq     int64
	startMs float64
	end     int64
}

// lastIO is where and when the volume's last request ended, which is all
// a profiled head may know of the head. mech keeps it up to date.
type lastIO struct {
	end   int64   // the block after the request's last block
	endMs float64 // simulated time it completed
	seq   int64   // requests served so far
}

// note records a request of n blocks at b that ended at endMs.
func (l *lastIO) note(b int64, n int, endMs float64) {
	l.end, l.endMs = b+int64(max(n, 0)), endMs
	l.seq++
}

// newProfiledHead prepares p's table for blocks of bs bytes.
func newProfiledHead(p *profile.Profile, m *mech, bs int) (*profiledHead, error) {
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("head profile: %w: %w", ErrInvalid, err)
	}
	if p.Meta.BlockBytes != bs {
		return nil, fmt.Errorf("head profile measured with %d-byte writes, volume has %d-byte blocks: %w", p.Meta.BlockBytes, bs, ErrInvalid)
	}
	g := p.Grid
	k := int(g.MaxSkipBytes()/int64(bs)) + 1
	ph := &profiledHead{m: m, p: p, table: make([][]float64, g.Thinks), blind: make([]float64, k), floor: math.Inf(1)}
	for i := range ph.table {
		ph.table[i] = make([]float64, k)
		for s := 0; s < k; s++ {
			j := g.SkipIndex(int64(s) * int64(bs))
			v := p.MeanMs[i][j]
			ph.table[i][s] = v
			ph.blind[s] += v / float64(g.Thinks)
			ph.floor = min(ph.floor, v)
		}
	}
	if s := p.Summarize(); s.Flat {
		ph.flat, ph.floor = true, s.MedianMs
		for i := range ph.table {
			for s := range ph.table[i] {
				ph.table[i][s] = ph.floor
			}
		}
		for s := range ph.blind {
			ph.blind[s] = ph.floor
		}
	}
	return ph, nil
}

func (ph *profiledHead) name() string {
	if ph.flat {
		return "profile (flat)"
	}
	return "profile"
}

// choose implements headModel. The head position h is ignored: a profiled
// head cannot see it. Free space is managed as the allocator does for the
// oracle (vld/alloc, search.go): while empty tracks exist and a fill threshold
// is set, runs on the active track come first, then runs on empty tracks,
// and only then any free run; within each class the profile decides.
func (ph *profiledHead) Choose(a *alloc.Allocator, _ disk.Head, startMs float64, n int, w alloc.Window) alloc.Choice {
	defer a.EndDecision(a.StartDecision())
	anchor, think := ph.anchor(startMs)
	row := ph.blind
	if i := ph.p.Grid.ThinkIndex(think); i >= 0 {
		row = ph.table[i]
	}
	c := alloc.NoChoice
	for _, f := range ph.classes(a) {
		if c = ph.scan(a, anchor, row, n, w, f); c.Block >= 0 {
			break
		}
	}
	if c.Block < 0 {
		c = ph.fallback(a, anchor, n, w)
	}
	if c.Block >= 0 {
		ph.plan = plannedRun{valid: true, seq: ph.m.last.seq, startMs: startMs, end: c.Block + int64(n)}
	}
	return c
}

// trackFilter says which tracks a scan may place a run on.
type trackFilter func(t int) bool

// classes lists the track filters to try in order (see choose). With
// avoidEmpty (Volume.SetAvoidEmpty) tracks in use come first, as in the
// allocator's own choice.
func (ph *profiledHead) classes(a *alloc.Allocator) []trackFilter {
	all := func(int) bool { return true }
	var out []trackFilter
	if a.AvoidEmpty() {
		out = append(out, func(t int) bool { return a.TrackFree(t) < a.TrackCap(t) })
	}
	if a.Threshold() <= 0 || a.EmptyTracks() == 0 {
		return append(out, all)
	}
	active := func(t int) bool { return t == a.Active() && a.TrackFree(t) < a.TrackCap(t) && a.Fillable(t) }
	return append(out, active, a.Fillable, all)
}

// anchor is where the write's skip is measured from and the think time:
// the end of the last request served and the time since it ended, or, for
// a later run of a request still being planned, the end of the run before
// it, issued right after it.
func (ph *profiledHead) anchor(startMs float64) (int64, float64) {
	last := ph.m.last
	if ph.plan.valid && ph.plan.seq == last.seq && startMs > ph.plan.startMs+1e-9 {
		return ph.plan.end, 0
	}
	issue := startMs - ph.m.overheadMs(true) // the caller added it; the profile's times include it
	if ph.m.clock == ClockReal {
		// Simulated time catches up with the wall clock only when the
		// request is served (mech.syncWall); the think time is real now.
		issue = max(issue, float64(time.Since(ph.m.start))/float64(time.Millisecond))
	}
	return last.end, max(issue-last.endMs, 0)
}

// scan prices every free run start in the profiled range after anchor.
func (ph *profiledHead) scan(a *alloc.Allocator, anchor int64, row []float64, n int, w alloc.Window, f trackFilter) alloc.Choice {
	end := min(anchor+int64(len(row)), ph.m.l.NumBlocks())
	best, bestMs := int64(-1), math.Inf(1)
	for b := a.NextFree(anchor, end); b >= 0; b = a.NextFree(b+1, end) {
		if ms := row[b-anchor]; ms < bestMs && ph.fits(a, b, n, w) && f(ph.m.l.TrackOf(b)) {
			best, bestMs = b, ms
		}
	}
	if best < 0 {
		return alloc.NoChoice
	}
	return alloc.Choice{Block: best, Cost: bestMs - ph.floor}
}

// fallback takes the first fitting free run at or after anchor in address
// order, wrapping once; its cost is unknown, so it is priced as a write
// with no knowledge of the phase.
func (ph *profiledHead) fallback(a *alloc.Allocator, anchor int64, n int, w alloc.Window) alloc.Choice {
	nb := ph.m.l.NumBlocks()
	var sum float64
	for _, v := range ph.blind {
		sum += v
	}
	cost := sum/float64(len(ph.blind)) - ph.floor
	for _, r := range [][2]int64{{anchor, nb}, {0, min(anchor, nb)}} {
		for b := a.NextFree(r[0], r[1]); b >= 0; b = a.NextFree(b+1, r[1]) {
			if !a.MayPlace(w, ph.m.l.TrackOf(b)) {
				b = ph.skipOutside(a, b, w) - 1
				continue
			}
			if ph.fits(a, b, n, w) {
				return alloc.Choice{Block: b, Cost: cost}
			}
		}
	}
	return alloc.NoChoice
}

// skipOutside returns the first block after b's track that may lie in w:
// the next track if w lists extra tracks, else the window's first track if
// it is ahead, else the end of the disk.
func (ph *profiledHead) skipOutside(a *alloc.Allocator, b int64, w alloc.Window) int64 {
	if w.Extra != nil {
		if t := ph.m.l.TrackOf(b) + 1; t < ph.m.l.NumTracks() {
			return ph.m.l.TrackStart(t)
		}
		return ph.m.l.NumBlocks()
	}
	if s := ph.m.l.TrackStart(w.Start); s > b {
		return s
	}
	return ph.m.l.NumBlocks()
}

// fits reports whether a run of n blocks may start at b: free, on one
// track (runs never span tracks), inside the window.
func (ph *profiledHead) fits(a *alloc.Allocator, b int64, n int, w alloc.Window) bool {
	if b+int64(n) > ph.m.l.NumBlocks() {
		return false
	}
	t := ph.m.l.TrackOf(b)
	if n > 1 && (ph.m.l.TrackOf(b+int64(n)-1) != t || !a.FreeRun(b, n)) {
		return false
	}
	return a.MayPlace(w, t)
}

// chooseHead builds the head model Options ask for.
func chooseHead(o Options, m *mech, bs int) (headModel, error) {
	if o.Head == nil {
		return simulatedHead{m: m}, nil
	}
	return newProfiledHead(o.Head, m, bs)
}
