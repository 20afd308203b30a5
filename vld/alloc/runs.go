package alloc

import (
	"fmt"
	"math/bits"
)

// runIndex answers "which cylinder at or after c holds a free run of at
// least n blocks on one track" in O(log cylinders), so that a search on a
// full, fragmented disk skips the cylinders that cannot hold the run
// instead of pricing every track on the way (issue 32: at 80 % utilisation
// a 50-block write used to walk the whole disk once per halving of its
// run length).
//
// It keeps, per track, the longest free run (longest), and a max-tree over
// cylinders of their tracks' longest runs. Marking a block only queues its
// track (stale); the queue is folded in before each search (refresh), so
// that mounting, which marks every live block once, pays one recount per
// track rather than one per block.
type runIndex struct {
	longest []int32 // per track: the longest free run, blocks
	stale   []int   // tracks whose longest run may have changed
	queued  []bool  // per track: in stale
	surf    int     // tracks per cylinder
	ncyl    int
	size    int     // leaves in tree: a power of two >= ncyl
	tree    []int32 // tree[size+c] = max longest over cylinder c's tracks
}

func newRunIndex(ntracks, surfaces, ncyl int) *runIndex {
	size := 1
	if ncyl > 1 {
		size = 1 << bits.Len(uint(ncyl-1))
	}
	return &runIndex{
		longest: make([]int32, ntracks),
		queued:  make([]bool, ntracks),
		surf:    surfaces,
		ncyl:    ncyl,
		size:    size,
		tree:    make([]int32, 2*size),
	}
}

// touch queues track t for a recount.
func (r *runIndex) touch(t int) {
	if !r.queued[t] {
		r.queued[t] = true
		r.stale = append(r.stale, t)
	}
}

// refresh recounts the queued tracks and updates their cylinders.
func (a *Allocator) refreshRuns() {
	r := a.runs
	if len(r.stale) == 0 {
		return
	}
	for _, t := range r.stale {
		r.queued[t] = false
		r.longest[t] = a.longestRun(t)
	}
	for _, t := range r.stale {
		c := t / r.surf
		var m int32
		for s := c * r.surf; s < min((c+1)*r.surf, len(r.longest)); s++ {
			m = max(m, r.longest[s])
		}
		r.set(c, m)
	}
	r.stale = r.stale[:0]
}

// set changes cylinder c's value and the maxima above it.
func (r *runIndex) set(c int, v int32) {
	i := r.size + c
	if r.tree[i] == v {
		return
	}
	r.tree[i] = v
	for i >>= 1; i >= 1; i >>= 1 {
		m := max(r.tree[2*i], r.tree[2*i+1])
		if r.tree[i] == m {
			return
		}
		r.tree[i] = m
	}
}

// next returns the first cylinder c >= from whose tracks hold a free run of
// at least n blocks, or -1.
func (r *runIndex) next(from, n int) int {
	if from < 0 {
		from = 0
	}
	if from >= r.ncyl {
		return -1
	}
	want := int32(n)
	i := r.size + from
	if r.tree[i] < want {
		// Climb until a right sibling's subtree holds such a run.
		for {
			if i == 1 {
				return -1
			}
			if i&1 == 0 && r.tree[i+1] >= want {
				i++
				break
			}
			i >>= 1
		}
		for i < r.size {
			i *= 2
			if r.tree[i] < want {
				i++
			}
		}
	}
	if c := i - r.size; c < r.ncyl {
		return c
	}
	return -1
}

// nextCyl returns the first cylinder c >= from that may hold a free run of
// n blocks on one track, or -1. A single block needs no index: the
// cylinder's free count says it, and one-block writes, the commonest, do
// not pay for folding the queued tracks in.
func (a *Allocator) nextCyl(from, n int) int {
	if n > 1 {
		a.refreshRuns()
		return a.runs.next(from, n)
	}
	for c := max(from, 0); c < len(a.cylFree); c++ {
		if a.cylFree[c] > 0 {
			return c
		}
	}
	return -1
}

// mayHold reports whether track t holds a free run of n blocks (the index
// is current: nextCyl refreshed it for n > 1).
func (a *Allocator) mayHold(t, n int) bool {
	if n > 1 {
		return a.runs.longest[t] >= int32(n)
	}
	return a.trackFree[t] > 0
}

// MaxRun is the longest free run on any one track of the disk.
func (a *Allocator) MaxRun() int {
	a.refreshRuns()
	return int(a.runs.tree[1])
}

// longestRun counts track t's longest run of free blocks from the bitmap.
func (a *Allocator) longestRun(t int) int32 {
	start := a.l.TrackStart(t)
	end := start + int64(a.trackCap[t])
	if a.trackFree[t] == a.trackCap[t] {
		return a.trackCap[t]
	}
	var best int64
	for b := a.NextFree(start, end); b >= 0; {
		u := a.NextUsed(b, end)
		if u < 0 {
			u = end
		}
		best = max(best, u-b)
		if end-u <= best {
			break
		}
		b = a.NextFree(u, end)
	}
	return int32(best)
}

// checkRuns recounts every track's longest run and the tree above them.
func (a *Allocator) checkRuns() error {
	a.refreshRuns()
	r := a.runs
	leaves := make([]int32, r.size)
	for t := range r.longest {
		if got := a.longestRun(t); got != r.longest[t] {
			return fmt.Errorf("track %d: longest free run %d counted, %d recorded", t, got, r.longest[t])
		}
		c := t / r.surf
		leaves[c] = max(leaves[c], r.longest[t])
	}
	for c, v := range leaves {
		if r.tree[r.size+c] != v {
			return fmt.Errorf("cylinder %d: longest free run %d counted, %d recorded", c, v, r.tree[r.size+c])
		}
	}
	for i := r.size - 1; i >= 1; i-- {
		if m := max(r.tree[2*i], r.tree[2*i+1]); r.tree[i] != m {
			return fmt.Errorf("run index node %d: %d, children's max %d", i, r.tree[i], m)
		}
	}
	return nil
}
