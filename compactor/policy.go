package compactor

import (
	"math/rand"
	"sort"

	"github.com/vlfs/vlfs/vld"
)

// tracker is what the policy knows about every track: its free space at
// the last look, when that last changed (the track's age), and the tracks
// passed over because they could not be emptied (pinned blocks), until
// their free space changes.
type tracker struct {
	space    []vld.TrackSpace
	empty    int
	lastFree []int32
	changed  []float64 // simulated ms at which the free count last changed
	blocked  map[int]int32
	// holeless are the blocked tracks passed over because no hole on a
	// fuller track was left for their blocks (cost-benefit's MaxFree).
	holeless map[int]bool
	looked   bool
}

// look refreshes the tracker from the target at simulated time now.
func (k *tracker) look(t Target, now float64) {
	k.space, k.empty = t.Space(k.space)
	if len(k.lastFree) != len(k.space) {
		k.lastFree = make([]int32, len(k.space))
		k.changed = make([]float64, len(k.space))
		k.blocked, k.holeless = map[int]int32{}, map[int]bool{}
		for i, s := range k.space {
			k.lastFree[i] = s.Free
		}
	}
	for i, s := range k.space {
		if s.Free != k.lastFree[i] {
			k.lastFree[i], k.changed[i] = s.Free, now
		}
	}
	for t, f := range k.blocked {
		if k.space[t].Free != f {
			delete(k.blocked, t)
			delete(k.holeless, t)
		}
	}
	k.looked = true
}

// candidate reports whether track t could be a source: it holds data and
// has free space, and was not passed over since its space last changed.
func (k *tracker) candidate(t int) bool {
	s := k.space[t]
	if s.Free <= 0 || s.Free >= s.Capacity || s.Filling {
		return false
	}
	_, b := k.blocked[t]
	return !b
}

// order lists the candidate tracks, best first, by policy p.
func (k *tracker) order(p Policy, rng *rand.Rand) []int {
	var cands []int
	for t := range k.space {
		if k.candidate(t) {
			cands = append(cands, t)
		}
	}
	if p == Random {
		rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
		return cands
	}
	sort.Slice(cands, func(i, j int) bool { return k.better(cands[i], cands[j]) })
	return cands
}

// better is the cost-benefit order: more free blocks gained per live
// block moved (free/used, compared exactly), then the older track (its
// free space unchanged for longer: its data is less likely to die soon),
// then the lower track number.
func (k *tracker) better(a, b int) bool {
	sa, sb := k.space[a], k.space[b]
	if sa.InLogWindow != sb.InLogWindow {
		return sa.InLogWindow
	}
	x := int64(sa.Free) * int64(sb.Capacity-sb.Free)
	y := int64(sb.Free) * int64(sa.Capacity-sa.Free)
	if x != y {
		return x > y
	}
	if k.changed[a] != k.changed[b] {
		return k.changed[a] < k.changed[b]
	}
	return a < b
}
