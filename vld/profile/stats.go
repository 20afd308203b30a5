package profile

import (
	"math"
	"sort"
)

// cellStats is what one grid point keeps of its repetitions.
type cellStats struct{ median, spread, mean float64 }

// summarize sorts xs in place and returns median, interquartile range and
// mean. xs must not be empty.
func summarize(xs []float64) cellStats {
	sort.Float64s(xs)
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return cellStats{
		median: quantileSorted(xs, 0.5),
		spread: quantileSorted(xs, 0.75) - quantileSorted(xs, 0.25),
		mean:   sum / float64(len(xs)),
	}
}

// quantileSorted is the q-quantile of sorted xs, interpolating linearly
// between order statistics.
func quantileSorted(xs []float64, q float64) float64 {
	if len(xs) == 1 {
		return xs[0]
	}
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (xs[hi]-xs[lo])*(pos-float64(lo))
}

// median sorts xs in place and returns its median.
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return quantileSorted(xs, 0.5)
}
