package rangedisk

// expandTargets lists the single-address targets ECS expands a range write
// into: every aligned start whose n blocks fit in one run or, when k > 0 and
// there are more than k, k of them equally spaced in that list (the first
// always included, so one choice means "the first block of the range", as
// in Figure 8 of the paper).
func expandTargets(runs []Extent, n, align, k int) []int64 {
	total := int64(0)
	for _, e := range runs {
		total += startsIn(e, n, align)
	}
	if k == 0 || int64(k) >= total {
		out := make([]int64, 0, total)
		for _, e := range runs {
			for s := alignUp(e.Begin, align); s+int64(n) <= e.End; s += int64(align) {
				out = append(out, s)
			}
		}
		return out
	}
	out := make([]int64, 0, k)
	for i := range int64(k) {
		out = append(out, nthStart(runs, n, align, i*total/int64(k)))
	}
	return out
}

// startsIn counts the aligned starts of an n-block write inside e.
func startsIn(e Extent, n, align int) int64 {
	first := alignUp(e.Begin, align)
	last := alignDown(e.End-int64(n), align)
	if last < first {
		return 0
	}
	return (last-first)/int64(align) + 1
}

// nthStart is the i-th aligned start (0-based) over all runs; i must be
// below the total.
func nthStart(runs []Extent, n, align int, i int64) int64 {
	for _, e := range runs {
		c := startsIn(e, n, align)
		if i < c {
			return alignUp(e.Begin, align) + i*int64(align)
		}
		i -= c
	}
	return -1
}

// ecsBest offers every expanded target of every range write that no other
// write has taken, each with its own service-time estimate, as a plain SPTF
// scheduler over the expanded queue would. It returns the estimates made.
func (d *Disk) ecsBest(best *candidate) int {
	est := 0
	ovh := d.overheadMs(true)
	for i, p := range d.queue {
		for _, s := range p.cands {
			if d.res.taken(s, p.req.Blocks) {
				continue // cancelled: another range write landed there
			}
			best.offer(ovh+d.l.PositionMs(d.head, d.now+ovh, s, true), i, s)
			est++
		}
	}
	return est
}
