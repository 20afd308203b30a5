package disk

import "math"

// SeekMs is the seek time for a distance of d cylinders; 0 for d == 0.
// A negative d is a seek in the other direction and costs the same.
func (m *Model) SeekMs(d int) float64 {
	if d < 0 {
		d = -d
	}
	if d == 0 {
		return 0
	}
	return math.Max(m.Seek.raw(d), m.Seek.MinMs)
}

// raw is the curve before the MinMs clamp.
func (c *SeekCurve) raw(d int) float64 {
	if d <= len(c.Table) {
		return c.Table[d-1]
	}
	if d < c.Boundary {
		return c.ShortA + c.ShortB*math.Sqrt(float64(d))
	}
	return c.LongA + c.LongB*float64(d)
}
