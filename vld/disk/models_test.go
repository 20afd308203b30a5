package disk

import (
	"math"
	"testing"
)

func relNear(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Abs(b) }

// TestSingleTrackSkip checks formula (1) against its recurrence (7) and the
// paper's "four sectors at 80% utilization" remark.
func TestSingleTrackSkip(t *testing.T) {
	// E(n,k) = (n-k)/n * (1 + E(n-1,k)), E(k,k) = 0.
	for _, n := range []int{8, 72, 256} {
		for k := 1; k <= n; k++ {
			e := 0.0
			for j := k + 1; j <= n; j++ {
				e = float64(j-k) / float64(j) * (1 + e)
			}
			if got := SingleTrackSkip(n, float64(k)/float64(n)); !relNear(got, e, 1e-9) && !(e == 0 && got < 1e-12) {
				t.Fatalf("n=%d k=%d: formula %v, recurrence %v", n, k, got, e)
			}
		}
	}
	if got := SingleTrackSkip(256, 0.2); got < 3.8 || got > 4 {
		t.Errorf("80%% utilized 256-sector track skips %v sectors, paper says about four", got)
	}
}

// TestMultiBlockSkip: formula (9) reduces to (1) for b = B = 1 and to (1)
// on blocks of b sectors, scaled to sectors, for b = B.
func TestMultiBlockSkip(t *testing.T) {
	for _, p := range []float64{0.1, 0.5, 0.9} {
		if got, want := MultiBlockSkip(256, p, 1, 1), SingleTrackSkip(256, p); !relNear(got, want, 1e-12) {
			t.Errorf("b=B=1: %v vs %v", got, want)
		}
		if got, want := MultiBlockSkip(256, p, 8, 8), 8*SingleTrackSkip(32, p); !relNear(got, want, 1e-12) {
			t.Errorf("b=B=8: %v vs %v", got, want)
		}
		if MultiBlockSkip(256, p, 1, 8) <= MultiBlockSkip(256, p, 8, 8) {
			t.Errorf("p=%v: matching block sizes should be cheapest", p)
		}
	}
}

// TestLocateModel checks the closed form against the literal double sum of
// formula (2) with (3) and (4).
func TestLocateModel(t *testing.T) {
	for _, c := range []struct {
		tracks int
		p, s   float64
	}{{19, 0.9, 12.006}, {19, 0.2, 12.006}, {16, 0.5, 21.33}, {16, 0.1, 21.33}, {2, 0.3, 3}} {
		got := LocateModel(72, c.tracks, c.p, c.s)
		want := LocateModelSum(c.tracks, c.p, c.s, 600)
		if !relNear(got, want, 1e-9) {
			t.Errorf("t=%d p=%v s=%v: closed form %v, sum %v", c.tracks, c.p, c.s, got, want)
		}
	}
	if got := LocateModel(72, 1, 0.25, 5); !relNear(got, 3, 1e-12) {
		t.Errorf("one track: %v, want (1-p)/p = 3", got)
	}
	if LocateModel(72, 19, 1, 13) != 0 || !math.IsInf(LocateModel(72, 19, 0, 13), 1) {
		t.Error("p=1 must cost 0 and p=0 +Inf")
	}
	// y-s is a whole number of units: 12.006 rounds up to 13, 13 stays 13.
	if LocateModel(72, 19, 0.05, 12.006) != LocateModel(72, 19, 0.05, 13) ||
		LocateModel(72, 19, 0.05, 13+1e-12) != LocateModel(72, 19, 0.05, 13) ||
		LocateModel(72, 19, 0.05, 12) == LocateModel(72, 19, 0.05, 13) {
		t.Error("switch cost must round up to whole units")
	}
}

// TestThresholdModel: (13) tracks (11) when eps is small, and eps matches
// formula (12) computed directly for small n.
func TestThresholdModel(t *testing.T) {
	n := 72
	p := 1 + float64(n)/36
	for _, m := range []int{0, 10, 36, 60, 71} {
		want := math.Pow(float64(n-m)-0.5, p+2) / ((8 - float64(n)/96) * (p + 2) * math.Pow(float64(n), p))
		if got := Epsilon(n, m); !relNear(got, want, 1e-9) {
			t.Errorf("eps(72,%d) = %v, want %v", m, got, want)
		}
	}
	// With eps subtracted, (13) is the integral approximation of (11).
	// The integral drops about (n+1)(H(m+1) - ln(m+2)) units, which only
	// matters for small m: 7 % of the total at m = 0, under 3 % beyond.
	for _, c := range []struct {
		m   int
		tol float64
	}{{0, 0.08}, {64, 0.03}, {128, 0.03}, {192, 0.03}, {240, 0.03}} {
		m := c.m
		s, r := 0.5, 6.0/256
		withEps := ThresholdModel(256, m, s, r)
		noEps := withEps - r*Epsilon(256, m)/float64(256-m)
		if random := ThresholdModelRandom(256, m, s, r); !relNear(noEps, random, c.tol) {
			t.Errorf("m=%d: integral form %v vs sum %v", m, noEps, random)
		}
		if withEps < noEps {
			t.Errorf("m=%d: eps must not lower the latency", m)
		}
	}
	if got := ThresholdSkipSum(5, 4); got != 0 {
		t.Errorf("one write into an empty track skips %v", got)
	}
}
