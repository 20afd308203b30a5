package vld

import (
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/place"
)

// headModel is how the volume predicts the cheapest place for a write. The
// simulated head (the default) knows the geometry and where the head is, and
// searches the free space for the run the head reaches soonest. A profiled
// head (a Bark-style table of write cost by skip distance and think time)
// plugs in here, knowing only where and when the last write went.
// The placement policies (vld/place) price their candidates through it:
// Choose for eager placement, ChooseInRanges and RunCost for range
// placement (head_range.go).
type headModel interface {
	place.Head
	name() string
}

// simulatedHead is the oracle head model: exact geometry and position.
type simulatedHead struct{ m *mech }

// Choose searches from the time the write really starts: on the real-time
// clock the callers' startMs comes from mech.now, which catches up with
// the wall clock only when a request is served, so between requests it is
// early by the think time since the last one, and the platter has turned
// meanwhile. Every start of one decision shifts by the same lag, so the
// later runs of a request (priced from the first one's cost) stay
// consistent.
func (s simulatedHead) Choose(a *alloc.Allocator, h disk.Head, startMs float64, n int, w alloc.Window) alloc.Choice {
	return a.Choose(h, startMs+s.m.lagMs(), n, w)
}

// lagMs is how far simulated time lags the wall clock on the real-time
// clock (0 on the virtual clock, where there is no wall time to follow).
func (m *mech) lagMs() float64 {
	if m == nil || m.clock != ClockReal {
		return 0
	}
	return max(0, float64(time.Since(m.start))/float64(time.Millisecond)-m.now)
}

func (simulatedHead) name() string { return "simulated" }

// HeadModel names the head model the volume places writes with:
// "simulated", "profile", or "profile (flat)" for a profile that shows no
// position effect (see profiledHead), for stats and reports.
func (v *Volume) HeadModel() string { return v.head.name() }
