package vld

import "github.com/vlfs/vlfs/vld/disk"

// headModel is how the volume predicts the cheapest place for a write. The
// simulated head (the default) knows the geometry and where the head is, and
// searches the free space for the run the head reaches soonest. A profiled
// head (a Bark-style table of write cost by skip distance and think time)
// plugs in here, knowing only where and when the last write went.
type headModel interface {
	// choose picks the first block of a run of n free blocks for a write
	// whose positioning starts at startMs with the head at h, inside w.
	choose(a *allocator, h disk.Head, startMs float64, n int, w window) choice
	name() string
}

// simulatedHead is the oracle head model: exact geometry and position.
type simulatedHead struct{}

func (simulatedHead) choose(a *allocator, h disk.Head, startMs float64, n int, w window) choice {
	return a.choose(h, startMs, n, w)
}

func (simulatedHead) name() string { return "simulated" }

// HeadModel names the head model the volume places writes with:
// "simulated", "profile", or "profile (flat)" for a profile that shows no
// position effect (see profiledHead), for stats and reports.
func (v *Volume) HeadModel() string { return v.head.name() }
