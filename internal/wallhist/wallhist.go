// Package wallhist records wall-clock durations in a fixed-size, lock-free
// histogram, so that a mounted file system can report the median and tail
// of what its requests and commits take without keeping every sample.
//
// Buckets are log-linear: eight per power of two, so a bucket is at most
// 1/8 of its lower bound wide and a quantile read from it (its midpoint) is
// within 1/16 (about 6 %) of the true sample. Durations below 16 ns have a
// bucket each; anything from 15*2^38 ns (about 69 minutes) up shares the
// last one, where the bound no longer holds.
//
// It owns no locks: Record is a few atomic adds, and Snapshot reads the
// counters one by one, so a snapshot taken while others record may be off
// by the samples in flight, never torn within one counter.
package wallhist

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

const (
	subBits  = 3 // 2^3 = 8 buckets per power of two
	subCount = 1 << subBits
	maxExp   = 41 // the last power of two with its own buckets: 2^41 to 2^42 ns
	// NumBuckets is the number of buckets of a Hist.
	NumBuckets = (maxExp-subBits+1)*subCount + subCount
)

// Hist is a histogram of durations. The zero value is empty and ready.
type Hist struct {
	counts [NumBuckets]atomic.Int64
	sum    atomic.Int64 // nanoseconds
}

// Record adds one duration; a negative one counts as 0.
func (h *Hist) Record(d time.Duration) {
	if d < 0 {
		d = 0
	}
	h.counts[bucket(uint64(d))].Add(1)
	h.sum.Add(int64(d))
}

// Since records the time elapsed since t.
func (h *Hist) Since(t time.Time) { h.Record(time.Since(t)) }

// Snapshot copies the counters.
func (h *Hist) Snapshot() Snapshot {
	var s Snapshot
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
	}
	s.SumNs = h.sum.Load()
	return s
}

// Snapshot is a copy of a Hist's counters. Two snapshots of one Hist
// subtract (Sub) to the samples recorded between them.
type Snapshot struct {
	Counts [NumBuckets]int64
	SumNs  int64
}

// Sub returns the samples of s that are not in prev, an earlier snapshot of
// the same Hist.
func (s Snapshot) Sub(prev Snapshot) Snapshot {
	out := Snapshot{SumNs: s.SumNs - prev.SumNs}
	for i := range s.Counts {
		out.Counts[i] = s.Counts[i] - prev.Counts[i]
	}
	return out
}

// Count is the number of samples.
func (s Snapshot) Count() int64 {
	var n int64
	for _, c := range s.Counts {
		n += c
	}
	return n
}

// Quantile returns the q-quantile (q from 0 to 1) by the nearest-rank rule,
// the smallest sample with at least a fraction q of the samples at or below
// it, as the midpoint of the bucket that holds it; 0 when empty.
func (s Snapshot) Quantile(q float64) time.Duration {
	n := s.Count()
	if n == 0 {
		return 0
	}
	q = min(max(q, 0), 1)
	// Rank ceil(q*n), 1-based, at least the first. The epsilon keeps a
	// product such as 0.07*100 = 7.000000000000001 at rank 7.
	rank := max(int64(math.Ceil(q*float64(n)-1e-9)), 1)
	var seen int64
	for i, c := range s.Counts {
		seen += c
		if seen >= rank {
			lo, hi := bounds(i)
			return time.Duration(lo + (hi-lo)/2)
		}
	}
	lo, hi := bounds(NumBuckets - 1)
	return time.Duration(lo + (hi-lo)/2)
}

// Summary is a snapshot reduced to what reports print, in microseconds.
type Summary struct {
	Count  int64   `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P50Us  float64 `json:"p50_us"`
	P90Us  float64 `json:"p90_us"`
	P99Us  float64 `json:"p99_us"`
}

// Summary reduces the snapshot to count, mean and quantiles.
func (s Snapshot) Summary() Summary {
	n := s.Count()
	if n == 0 {
		return Summary{}
	}
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	return Summary{
		Count:  n,
		MeanUs: float64(s.SumNs) / float64(n) / 1e3,
		P50Us:  us(s.Quantile(0.50)),
		P90Us:  us(s.Quantile(0.90)),
		P99Us:  us(s.Quantile(0.99)),
	}
}

// bucket is the index of the bucket holding v nanoseconds.
func bucket(v uint64) int {
	if v < subCount {
		return int(v)
	}
	exp := bits.Len64(v) - 1 // v lies in [2^exp, 2^(exp+1))
	if exp > maxExp {
		return NumBuckets - 1
	}
	sub := (v >> (exp - subBits)) & (subCount - 1)
	return (exp-subBits+1)*subCount + int(sub)
}

// bounds is the range [lo, hi) of bucket i, in nanoseconds. The last
// bucket is open-ended; its hi is that of a bucket of its width.
func bounds(i int) (lo, hi uint64) {
	if i < subCount {
		return uint64(i), uint64(i) + 1
	}
	exp := i/subCount + subBits - 1
	sub := uint64(i % subCount)
	width := uint64(1) << (exp - subBits)
	lo = (subCount + sub) * width
	return lo, lo + width
}
