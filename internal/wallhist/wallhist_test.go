package wallhist

import (
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/testseed"
)

var seed = flag.Uint64("wallhist.seed", 0, "replay TestQuantileAccuracy with this seed (0: a new one)")

// Every bucket's bounds map back to it, and the buckets tile the line.
func TestBucketBounds(t *testing.T) {
	var prevHi uint64
	for i := range NumBuckets {
		lo, hi := bounds(i)
		if lo != prevHi {
			t.Fatalf("bucket %d starts at %d, the one before ended at %d", i, lo, prevHi)
		}
		if hi <= lo {
			t.Fatalf("bucket %d is empty: [%d, %d)", i, lo, hi)
		}
		if got := bucket(lo); got != i {
			t.Fatalf("bucket(%d) = %d, want %d", lo, got, i)
		}
		if i < NumBuckets-1 {
			if got := bucket(hi - 1); got != i {
				t.Fatalf("bucket(%d) = %d, want %d", hi-1, got, i)
			}
			// At most 1/8 of the lower bound wide (so midpoints are within 1/16).
			if lo >= subCount && (hi-lo)*subCount > lo {
				t.Fatalf("bucket %d [%d, %d) wider than 1/%d of its start", i, lo, hi, subCount)
			}
		}
		prevHi = hi
	}
	if got := bucket(math.MaxUint64); got != NumBuckets-1 {
		t.Fatalf("bucket(max) = %d, want the last, %d", got, NumBuckets-1)
	}
}

func TestQuantileTable(t *testing.T) {
	for _, c := range []struct {
		name    string
		samples []time.Duration
		q       float64
		want    time.Duration // exact sample; the answer may be off by 1/16
	}{
		{"one sample", []time.Duration{100 * time.Microsecond}, 0.5, 100 * time.Microsecond},
		{"median of three", []time.Duration{10 * time.Microsecond, 200 * time.Microsecond, 3 * time.Millisecond}, 0.5, 200 * time.Microsecond},
		{"p0 is the least", []time.Duration{10 * time.Microsecond, 200 * time.Microsecond}, 0, 10 * time.Microsecond},
		{"p100 is the most", []time.Duration{10 * time.Microsecond, 200 * time.Microsecond}, 1, 200 * time.Microsecond},
		{"tiny durations exact", []time.Duration{3, 3, 5}, 0.5, 3},
		{"negative counts as zero", []time.Duration{-time.Second}, 0.5, 0},
		// 158 of 160 samples are 1 µs: 98.75 % is not 99 %, so p99 is a 1 ms one.
		{"p99 of a small tail", append(slices.Repeat([]time.Duration{time.Microsecond}, 158), time.Millisecond, time.Millisecond), 0.99, time.Millisecond},
		// 0.07*100 is 7.000000000000001 in floating point; rank 7 is still the last 1 µs one.
		{"a product just above an integer", append(slices.Repeat([]time.Duration{time.Microsecond}, 7), slices.Repeat([]time.Duration{time.Millisecond}, 93)...), 0.07, time.Microsecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			var h Hist
			for _, d := range c.samples {
				h.Record(d)
			}
			got := h.Snapshot().Quantile(c.q)
			if !near(got, c.want) {
				t.Fatalf("Quantile(%v) = %v, want %v within 1/16", c.q, got, c.want)
			}
		})
	}
}

func TestEmpty(t *testing.T) {
	var h Hist
	s := h.Snapshot()
	if s.Count() != 0 || s.Quantile(0.5) != 0 || s.Summary() != (Summary{}) {
		t.Fatalf("empty histogram: count %d, p50 %v, summary %+v", s.Count(), s.Quantile(0.5), s.Summary())
	}
}

// Quantiles of random samples agree with the sorted samples to within a
// bucket's half width.
func TestQuantileAccuracy(t *testing.T) {
	sd := uint64(testseed.Pick(t, int64(*seed), "wallhist.seed"))
	rng := rand.New(rand.NewPCG(sd, sd))
	var h Hist
	var all []time.Duration
	for range 20000 {
		// Log-uniform from 1 µs to 100 ms, as request times spread.
		d := time.Duration(math.Exp(rng.Float64()*math.Log(1e5)) * 1e3)
		h.Record(d)
		all = append(all, d)
	}
	slices.Sort(all)
	s := h.Snapshot()
	for _, q := range []float64{0.01, 0.1, 0.5, 0.9, 0.99, 0.999} {
		// Nearest rank, counted: the first sample with a fraction q at or below it.
		i := 0
		for float64(i+1) < q*float64(len(all)) {
			i++
		}
		want := all[i]
		if got := s.Quantile(q); !near(got, want) {
			t.Errorf("Quantile(%v) = %v, sorted samples say %v", q, got, want)
		}
	}
	var sum time.Duration
	for _, d := range all {
		sum += d
	}
	if got, want := s.Summary().MeanUs, float64(sum)/float64(len(all))/1e3; math.Abs(got-want) > 1e-6*want {
		t.Errorf("mean %v µs, want %v", got, want)
	}
}

// Sub leaves the samples recorded between two snapshots.
func TestSub(t *testing.T) {
	var h Hist
	for range 1000 {
		h.Record(time.Millisecond)
	}
	before := h.Snapshot()
	for range 10 {
		h.Record(50 * time.Microsecond)
	}
	d := h.Snapshot().Sub(before)
	if d.Count() != 10 {
		t.Fatalf("count %d, want 10", d.Count())
	}
	if got := d.Quantile(0.99); !near(got, 50*time.Microsecond) {
		t.Fatalf("p99 of the difference %v, want 50µs (the earlier 1 ms samples must not count)", got)
	}
	if got := d.Summary().MeanUs; math.Abs(got-50) > 1e-9 {
		t.Fatalf("mean of the difference %v µs, want 50", got)
	}
}

func near(got, want time.Duration) bool {
	diff := got - want
	if diff < 0 {
		diff = -diff
	}
	return diff*16 <= want || diff <= 1
}

func BenchmarkRecord(b *testing.B) {
	var h Hist
	for i := range b.N {
		h.Record(time.Duration(i%100000) * time.Nanosecond)
	}
}
