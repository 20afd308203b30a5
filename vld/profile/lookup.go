package profile

import (
	"math"
	"sort"
)

// ThinkIndex is the row nearest thinkMs, or -1 when thinkMs lies beyond
// the last row by more than half a step: the profile says nothing there.
func (g Grid) ThinkIndex(thinkMs float64) int {
	if thinkMs <= 1e-9 {
		return 0
	}
	if g.ThinkStepMs <= 0 {
		return -1
	}
	x := math.Round(thinkMs / g.ThinkStepMs)
	if !(x < float64(g.Thinks)) { // also NaN
		return -1
	}
	return int(x)
}

// SkipIndex is the column nearest skipBytes, or -1 beyond the last column
// by more than half a step. Negative skips are not measured: -1.
func (g Grid) SkipIndex(skipBytes int64) int {
	if skipBytes < 0 || skipBytes/g.SkipStepBytes >= int64(g.Skips) {
		return -1
	}
	j := int((skipBytes + g.SkipStepBytes/2) / g.SkipStepBytes)
	if j >= g.Skips {
		return -1
	}
	return j
}

// RowSummary is what one think time's row says.
type RowSummary struct {
	ThinkMs       float64 `json:"think_ms"`
	BestSkipBytes int64   `json:"best_skip_bytes"` // the cheapest skip (the smallest if tied)
	BestMs        float64 `json:"best_ms"`         // its median
	SeqMs         float64 `json:"seq_ms"`          // median at skip 0: the plain sequential append
	MedianMs      float64 `json:"median_ms"`       // median over all skips: a write placed anywhere
}

// Row summarises row i of the medians.
func (p *Profile) Row(i int) RowSummary {
	row := p.MedianMs[i]
	best := 0
	for j, v := range row {
		if v < row[best] {
			best = j
		}
	}
	return RowSummary{
		ThinkMs:       p.Grid.ThinkMs(i),
		BestSkipBytes: p.Grid.SkipBytes(best),
		BestMs:        row[best],
		SeqMs:         row[0],
		MedianMs:      median(append([]float64(nil), row...)),
	}
}

// Summary is a whole profile in a few numbers.
type Summary struct {
	Cells    int     `json:"cells"`
	MinMs    float64 `json:"min_ms"`
	MedianMs float64 `json:"median_ms"`
	MaxMs    float64 `json:"max_ms"`
	// Gain is the mean over think times of 1 - best/median: the share of
	// a typical write's time that choosing the cheapest skip saves. A
	// mechanical disk shows a large gain; a flat (SSD-like) device close
	// to 0, what remains being noise that the cheapest cell happens to
	// pick up.
	Gain float64 `json:"gain"`
	// SeqGain is the same against skip 0 (sequential appends).
	SeqGain float64 `json:"seq_gain"`
	// RelSpread is the median cell spread (interquartile range) over the
	// median cell value: the measurement noise.
	RelSpread float64 `json:"rel_spread"`
	// Flat says the profile shows no position effect worth using: the
	// cheapest skip saves no more than twice the noise, plus 5 %. An
	// SSD-like device comes out flat; a mechanical disk does not.
	Flat bool `json:"flat"`
}

// Summarize computes the Summary.
func (p *Profile) Summarize() Summary {
	all := make([]float64, 0, p.Grid.Cells())
	spreads := make([]float64, 0, p.Grid.Cells())
	var gain, seqGain float64
	for i := range p.MedianMs {
		all = append(all, p.MedianMs[i]...)
		spreads = append(spreads, p.SpreadMs[i]...)
		r := p.Row(i)
		if r.MedianMs > 0 {
			gain += 1 - r.BestMs/r.MedianMs
		}
		if r.SeqMs > 0 {
			seqGain += 1 - r.BestMs/r.SeqMs
		}
	}
	sort.Float64s(all)
	s := Summary{
		Cells:    len(all),
		MinMs:    all[0],
		MedianMs: quantileSorted(all, 0.5),
		MaxMs:    all[len(all)-1],
		Gain:     gain / float64(len(p.MedianMs)),
		SeqGain:  seqGain / float64(len(p.MedianMs)),
	}
	if s.MedianMs > 0 {
		s.RelSpread = median(spreads) / s.MedianMs
	}
	s.Flat = s.Gain <= 2*s.RelSpread+0.05
	return s
}
