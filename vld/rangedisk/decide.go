package rangedisk

import (
	"math"
	"slices"
)

// overheadMs is the controller overhead charged before positioning.
func (d *Disk) overheadMs(write bool) float64 {
	if write {
		return d.l.Model().WriteOverheadMs
	}
	return d.l.Model().ReadOverheadMs
}

// decide chooses the next request to serve at the current time and head
// position, removes it from the queue and, for a range write, reserves its
// target. nil when the queue is empty.
func (d *Disk) decide() *decision {
	if len(d.queue) == 0 {
		return nil
	}
	if i := d.deadIndex(); i >= 0 {
		return &decision{p: d.take(i), addr: -1, dead: true}
	}
	best := candidate{cost: math.Inf(1), idx: -1}
	est := d.exactBest(&best)
	if d.cfg.Scheduler == ECS {
		est += d.ecsBest(&best)
	} else {
		est += d.hrsBest(&best)
	}
	d.stats.Decisions++
	d.stats.Estimates += int64(est)
	if best.idx < 0 { // cannot happen: deadIndex found a target for every range write
		return &decision{p: d.take(0), addr: -1, est: est, dead: true}
	}
	p := d.take(best.idx)
	if p.req.Kind == RangeWrite {
		d.res.place(best.addr, p.req.Blocks, p.epoch)
		d.stats.Cancelled += int64(max(len(p.cands)-1, 0))
	}
	return &decision{p: p, addr: best.addr, est: est}
}

// candidate is the best choice found so far in a decision.
type candidate struct {
	cost float64 // overhead + positioning, ms
	idx  int     // index in the queue
	addr int64
}

// offer keeps (cost, idx, addr) if it beats the best; ties keep the first.
func (c *candidate) offer(cost float64, idx int, addr int64) {
	if cost < c.cost {
		*c = candidate{cost: cost, idx: idx, addr: addr}
	}
}

// take removes queue entry i and returns it.
func (d *Disk) take(i int) *pending {
	p := d.queue[i]
	d.queue = slices.Delete(d.queue, i, i+1)
	return p
}

// deadIndex finds a range write none of whose targets is left, or -1.
func (d *Disk) deadIndex() int {
	if d.res.len() == 0 {
		return -1
	}
	for i, p := range d.queue {
		if p.req.Kind == RangeWrite && !d.hasTarget(p) {
			return i
		}
	}
	return -1
}

// hasTarget reports whether some target of range write p is still free.
func (d *Disk) hasTarget(p *pending) bool {
	if p.cands != nil {
		for _, s := range p.cands {
			if !d.res.taken(s, p.req.Blocks) {
				return true
			}
		}
		return false
	}
	n, a := p.req.Blocks, p.req.Align
	for _, e := range p.runs {
		for s := alignUp(e.Begin, a); s+int64(n) <= e.End; s += int64(a) {
			if !d.res.taken(s, n) {
				return true
			}
		}
	}
	return false
}

// exactBest offers every exact request (SPTF) and returns the estimates made.
func (d *Disk) exactBest(best *candidate) int {
	n := 0
	for i, p := range d.queue {
		if p.req.Kind == RangeWrite {
			continue
		}
		ovh := d.overheadMs(p.write())
		best.offer(ovh+d.l.PositionMs(d.head, d.now+ovh, p.req.Addr, p.write()), i, p.req.Addr)
		n++
	}
	return n
}
