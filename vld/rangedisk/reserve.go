package rangedisk

import "math"

// reservations is the disk's placement memory: the blocks range writes were
// placed on, each with the epoch (barrier count) of its write. A block in
// it is no target for another range write until forgotten.
type reservations struct {
	m        map[int64]uint64
	minEpoch uint64 // no entry is older; lets forget skip the scan
}

func newReservations() reservations {
	return reservations{m: make(map[int64]uint64), minEpoch: math.MaxUint64}
}

func (r *reservations) len() int { return len(r.m) }

// taken reports whether any of blocks [s, s+n) is reserved.
func (r *reservations) taken(s int64, n int) bool {
	if len(r.m) == 0 {
		return false
	}
	for b := s; b < s+int64(n); b++ {
		if _, ok := r.m[b]; ok {
			return true
		}
	}
	return false
}

// place reserves blocks [s, s+n) for a write of the given epoch.
func (r *reservations) place(s int64, n int, epoch uint64) {
	for b := s; b < s+int64(n); b++ {
		r.m[b] = epoch
	}
	r.minEpoch = min(r.minEpoch, epoch)
}

// forgetBefore drops every placement of an epoch below threshold.
func (r *reservations) forgetBefore(threshold uint64) {
	if threshold <= r.minEpoch {
		return
	}
	r.minEpoch = math.MaxUint64
	for b, e := range r.m {
		if e < threshold {
			delete(r.m, b)
			continue
		}
		r.minEpoch = min(r.minEpoch, e)
	}
}

// forget drops the placements no request can collide with any more: those
// of epochs that a later barrier closed and whose writes have all
// completed. The oldest outstanding request bounds the epochs dropped.
func (d *Disk) forget() {
	threshold := d.epoch
	for _, p := range d.queue {
		threshold = min(threshold, p.epoch)
	}
	if d.next != nil {
		threshold = min(threshold, d.next.p.epoch)
	}
	d.res.forgetBefore(threshold)
}
