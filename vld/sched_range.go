package vld

import "github.com/vlfs/vlfs/vld/sched"

// Range writes in a queue (issue 31; the range-writes paper's HRS over a
// command queue). Range placement serves requests whole, in FIFO order,
// outside batching; until now a write that found others queued also lost
// its hints, so HRS chose only at queue depth 1. A queued write now keeps
// its hints, and when several range writes wait, the one whose first
// chain the head reaches first goes next: the choice a disk scheduling
// range writes by HRS makes among its queue. A write passed over
// maxPassed times goes next whatever it costs, so none starves.

// maxPassed bounds how often a waiting range write may be passed over:
// on this disk a service is a few ms, so none waits more than about 32
// of them behind writes the head reaches first (48 writes queued at once
// take 0.53x the time of arrival order with 32, 0.76x with 8, 0.49x
// unbounded: TestRangeQueueByHRS).
const maxPassed = 32

// pickRangeWriteLocked returns the unit to serve in place of u (the
// oldest write, whole): the waiting range write the head reaches first.
func (v *Volume) pickRangeWriteLocked(u unit) unit {
	if len(u.Pieces) != 1 || u.Pieces[0].R.Fixed || v.place.fifoRanges {
		return u
	}
	oldest := u.Pieces[0].R
	if oldest.passed >= maxPassed {
		return u
	}
	best, bestCost := oldest, v.rangeStartCostLocked(oldest)
	q := v.sched
	for i := 0; i < q.Writes(); i++ {
		w := q.Write(i)
		if w == oldest || w.Done || w.Fixed || w.Arrive > v.m.now {
			continue
		}
		if c := v.rangeStartCostLocked(w); c < bestCost {
			best, bestCost = w, c
		}
	}
	if best == oldest {
		return u
	}
	for i := 0; i < q.Writes(); i++ {
		if w := q.Write(i); w != best && !w.Done && w.Before(&best.Request) {
			w.passed++
		}
	}
	v.stats.RangeQueuePicks++
	return unit{Pieces: []sched.Piece[*request]{{R: best, N: best.Left()}}}
}

// rangeStartCostLocked is the positioning time (ms) the head needs to
// reach where range placement would put the first chain of w now; +Inf
// when nothing fits (it then goes in FIFO turn and fails there).
func (v *Volume) rangeStartCostLocked(w *request) float64 {
	near := sliceOf(w.near, w.Sent, w.Left())
	rep := sliceOf(w.rep, w.Sent, w.Left())
	return v.place.rng.StartCost(v.placeAtLocked(), near, rep, w.Left())
}

// hintsOf copies o's hints for a queued write of n blocks (the caller may
// reuse its slices once the call returns); nil when absent or malformed,
// as hintLocked ignores them.
func hintsOf(o WriteOpts, n int) ([]Addr, []bool) {
	if len(o.Near) != n {
		return nil, nil
	}
	near := append([]Addr(nil), o.Near...)
	if len(o.Replaces) != n {
		return near, nil
	}
	return near, append([]bool(nil), o.Replaces...)
}

// sliceOf is s[from:from+n], or nil when s is nil.
func sliceOf[T any](s []T, from, n int) []T {
	if s == nil {
		return nil
	}
	return s[from : from+n]
}
