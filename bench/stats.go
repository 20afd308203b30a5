package bench

import "math"

// meanCI accumulates samples and reports their mean and the half-width of
// a 95 % confidence interval of it (normal approximation).
type meanCI struct {
	n          int
	sum, sumSq float64
}

func (m *meanCI) add(x float64) {
	m.n++
	m.sum += x
	m.sumSq += x * x
}

func (m *meanCI) mean() float64 { return m.sum / float64(m.n) }

func (m *meanCI) ci95() float64 {
	if m.n < 2 {
		return math.Inf(1)
	}
	mu := m.mean()
	v := (m.sumSq - float64(m.n)*mu*mu) / float64(m.n-1)
	return 1.96 * math.Sqrt(math.Max(v, 0)/float64(m.n))
}

// diffPct is (sim-model)/model in percent.
func diffPct(sim, model float64) float64 { return (sim - model) / model * 100 }
