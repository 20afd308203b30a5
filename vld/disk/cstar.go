package disk

import (
	"fmt"
	"math"
)

// CStar is formula (10) of Carson and Setia, "Optimal Write Batch Size in
// Log-Structured File Systems": the write batch size, in blocks, that
// minimises read response time under read priority,
// c* = sqrt((D^2 + sigma^2) / k^2), where dMs = mean seek + mean rotation,
// sigma2Ms2 = seek variance + rotation variance, and kMs = transfer time of
// one block. D and k must be positive and finite; sigma^2 must be finite
// and non-negative (zero is a deterministic service time, still
// meaningful). Errors wrap ErrBadParameter and name the parameter.
func CStar(dMs, sigma2Ms2, kMs float64) (float64, error) {
	switch {
	case !(dMs > 0) || math.IsInf(dMs, 0):
		return 0, fmt.Errorf("%w: D (mean seek + rotation) must be a positive finite time, got %v ms", ErrBadParameter, dMs)
	case !(sigma2Ms2 >= 0) || math.IsInf(sigma2Ms2, 0):
		return 0, fmt.Errorf("%w: sigma^2 (seek + rotation variance) must be finite and >= 0, got %v ms^2", ErrBadParameter, sigma2Ms2)
	case !(kMs > 0) || math.IsInf(kMs, 0):
		return 0, fmt.Errorf("%w: k (transfer time per block) must be a positive finite time, got %v ms", ErrBadParameter, kMs)
	}
	return math.Sqrt(dMs*dMs+sigma2Ms2) / kMs, nil
}

// BestBatch is the whole batch size, floor or ceiling of c*, that minimises
// the batch-dependent term of Carson and Setia's read response time,
// (D^2+sigma^2)/c + k^2 c (their formula 8); at least 1.
func BestBatch(cStar, dMs, sigma2Ms2, kMs float64) int {
	f := func(c float64) float64 { return (dMs*dMs+sigma2Ms2)/c + kMs*kMs*c }
	lo := math.Max(1, math.Floor(cStar))
	hi := math.Max(1, math.Ceil(cStar))
	if f(hi) < f(lo) {
		return int(hi)
	}
	return int(lo)
}

// SeekStats returns the mean and variance (ms, ms^2) of the seek time over
// uniformly random pairs of distinct cylinders: distance d has probability
// 2(C-d)/(C(C-1)) for d = 1..C-1. A one-cylinder disk has no seeks: 0, 0.
func SeekStats(m *Model) (mean, variance float64) {
	c := m.Cylinders
	if c < 2 {
		return 0, 0
	}
	pairs := float64(c) * float64(c-1) / 2
	var s1, s2 float64
	for d := 1; d < c; d++ {
		w := float64(c-d) / pairs
		s := m.SeekMs(d)
		s1 += w * s
		s2 += w * s * s
	}
	return s1, math.Max(s2-s1*s1, 0)
}

// RotationStats returns the mean and variance of a rotational latency
// uniform over one revolution R: R/2 and R^2/12.
func RotationStats(m *Model) (mean, variance float64) {
	r := m.RotationMs()
	return r / 2, r * r / 12
}

// CStarInputs are formula (10)'s inputs and results for one disk model at
// one block size, as `vlfs cstar --disk` prints them and as the VLD's
// `auto` write batching uses them.
type CStarInputs struct {
	DMs       float64 // mean seek (random cylinder pairs) + mean rotation (R/2)
	Sigma2Ms2 float64 // seek variance + rotation variance (R^2/12)
	KMs       float64 // transfer time of one block in the outer zone
	CStar     float64 // formula (10), in blocks
	Batch     int     // BestBatch: the whole batch size in force
}

// CStarFor derives D, sigma^2 and k from the model (SeekStats,
// RotationStats, the outer zone's media rate) and evaluates formula (10).
// blockSize must be positive; errors wrap ErrBadParameter.
func CStarFor(m *Model, blockSize int) (CStarInputs, error) {
	if blockSize <= 0 {
		return CStarInputs{}, fmt.Errorf("%w: block size must be positive, got %d", ErrBadParameter, blockSize)
	}
	sm, sv := SeekStats(m)
	rm, rv := RotationStats(m)
	in := CStarInputs{DMs: sm + rm, Sigma2Ms2: sv + rv, KMs: float64(blockSize) / m.MediaRateBytesPerMs()}
	c, err := CStar(in.DMs, in.Sigma2Ms2, in.KMs)
	if err != nil {
		return CStarInputs{}, fmt.Errorf("disk %s: %w", m.Name, err)
	}
	in.CStar = c
	in.Batch = BestBatch(c, in.DMs, in.Sigma2Ms2, in.KMs)
	return in, nil
}
