package disk

import "math"

// The analytical models of the virtual-log paper (Wang, Anderson,
// Patterson, OSDI 1999), section 2 and appendix A. Delays are in units
// skipped, a unit being the disk's allocation unit (the paper's sector; a
// VLD block in vlfs); multiply by the unit's rotation time to get ms.

// SingleTrackSkip is formula (1)/(6): the expected number of units the head
// skips before reaching a free one on a track of n units of which the
// fraction p is free, randomly placed: (1-p)n / (1+pn).
func SingleTrackSkip(n int, p float64) float64 {
	fn := float64(n)
	return (1 - p) * fn / (1 + p*fn)
}

// MultiBlockSkip is formula (9): the expected number of sectors skipped to
// find all the free sectors of one logical block of B sectors when the disk
// allocates physical blocks of b sectors (b <= B, b divides B), on a track
// of n sectors with free fraction p: (1-p)n / (b+pn) * B.
func MultiBlockSkip(n int, p float64, b, B int) float64 {
	fn := float64(n)
	return (1 - p) * fn / (float64(b) + p*fn) * float64(B)
}

// switchUnits rounds a head-switch cost expressed in units up to the whole
// number of units the head can first write at on another track. A unit on
// another track can only be written from its start, so after a switch of
// s/r units the earliest start is ceil(s/r) units after the head's current
// unit boundary, provided the other tracks' unit boundaries line up with
// the current track's (true with single-sector units, and with larger
// units when the track skew is a multiple of the unit). The small slack
// keeps an exact integer from rounding up through floating-point noise.
func switchUnits(s float64) float64 {
	if s <= 0 {
		return 0
	}
	return math.Ceil(s - 1e-9)
}

// LocateModel is formulas (2)-(4): the expected delay, in units, to reach
// the nearest free unit within the current cylinder, when the head is at a
// unit boundary on one of its t tracks of (effectively unbounded) units,
// the fraction p of units is free at random, and moving to another track
// costs switchUnits units (s/r in the paper; see below). x, the delay on the
// current track, is geometric: fx(p,x) = p(1-p)^x. y, the delay on the other
// t-1 tracks, is S plus a geometric with q = 1-(1-p)^(t-1): fy(p,y) =
// fx(q, y-S), where S = ceil(switchUnits) because y-S must be a whole number
// of units (the first unit start reachable after the switch). The result is
// E[min(x,y)] = sum_k P(x>k)P(y>k), in closed form. p <= 0 gives +Inf.
func LocateModel(n, t int, p float64, switchUnitsCost float64) float64 {
	_ = n // the paper's model treats the track as unbounded; n is kept for the formula's signature
	if p >= 1 {
		return 0
	}
	if p <= 0 {
		return math.Inf(1)
	}
	a := 1 - p // P(x > k) = a^(k+1)
	b := 0.0   // P(y-S > j) = b^(j+1): all t-1 other tracks used at j+1 positions
	if t > 1 {
		b = math.Pow(a, float64(t-1))
	}
	s := switchUnits(switchUnitsCost)
	before := a * (1 - math.Pow(a, s)) / p    // k < S: only x can be > k
	after := math.Pow(a, s+1) * b / (1 - a*b) // k >= S: both
	if t <= 1 {
		after = math.Pow(a, s+1) / p // no other track: min(x,y) = x
	}
	return before + after
}

// LocateModelSum evaluates formula (2) literally, as the double sum of
// min(x,y) fx fy truncated at maxUnits; tests use it to check LocateModel.
// It needs t >= 2: with one track fy is identically zero.
func LocateModelSum(t int, p, switchUnitsCost float64, maxUnits int) float64 {
	q := 1 - math.Pow(1-p, float64(t-1))
	s := int(switchUnits(switchUnitsCost))
	fx := func(p float64) []float64 { // fx(p, x) for x = 0..maxUnits-1
		f := make([]float64, maxUnits)
		for x := range f {
			f[x] = p * math.Pow(1-p, float64(x))
		}
		return f
	}
	fxp, fyq := fx(p), fx(q)
	var sum float64
	for x := range maxUnits {
		for j := range maxUnits { // y = s + j
			sum += float64(min(x, s+j)) * fxp[x] * fyq[j]
		}
	}
	return sum
}

// ThresholdSkipSum is formula (10): the total number of units skipped while
// filling a track of n units from empty until m are left free, each write
// arriving at a random unit boundary with randomly placed free space:
// sum_{i=m+1..n} (n-i)/(1+i).
func ThresholdSkipSum(n, m int) float64 {
	var sum float64
	for i := m + 1; i <= n; i++ {
		sum += float64(n-i) / float64(1+i)
	}
	return sum
}

// ThresholdModelRandom is formula (11): the mean latency per write, in the
// unit of sMs and rMs, when one track switch of cost sMs is paid per n-m
// writes and each skipped unit costs rMs, with free space assumed random:
// (s + r*sum) / (n-m).
func ThresholdModelRandom(n, m int, sMs, rMs float64) float64 {
	return (sMs + rMs*ThresholdSkipSum(n, m)) / float64(n-m)
}

// Epsilon is formula (12), the paper's empirical correction for the
// non-random free space that nearest-free filling leaves behind:
// eps(n,m) = (n-m-0.5)^(p+2) / ((8 - n/96) (p+2) n^p), p = 1 + n/36.
// It is computed in logarithms so large n does not overflow.
func Epsilon(n, m int) float64 {
	fn := float64(n)
	p := 1 + fn/36
	base := fn - float64(m) - 0.5
	if base <= 0 {
		return 0
	}
	den := (8 - fn/96) * (p + 2)
	return math.Exp((p+2)*math.Log(base)-p*math.Log(fn)) / den
}

// ThresholdModel is formula (13) (= (5) with the correction): the mean
// latency per write when filling empty tracks until m of n units are free,
// then switching at cost sMs; rMs is the rotation time of one unit:
// (s + r[(n+1) ln((n+2)/(m+2)) - (n-m) + eps(n,m)]) / (n-m).
func ThresholdModel(n, m int, sMs, rMs float64) float64 {
	fn, fm := float64(n), float64(m)
	skips := (fn+1)*math.Log((fn+2)/(fm+2)) - (fn - fm) + Epsilon(n, m)
	return (sMs + rMs*skips) / (fn - fm)
}
