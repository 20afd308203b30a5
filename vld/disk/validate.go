package disk

import (
	"fmt"
	"math"
)

// Limits that keep a decoded model from asking for absurd allocations or
// overflowing block arithmetic. They are far above any real drive.
const (
	MaxCylinders       = 1 << 20
	MaxSurfaces        = 1 << 8
	MaxSectorsPerTrack = 1 << 16
	MaxTimeMs          = 1e6 // no single mechanical time is anywhere near 1000 s
)

// Validate checks the model's fields. Errors wrap ErrInvalidModel and name
// the offending field by its JSON name (zones[2].last_cyl, seek.min_ms).
func (m *Model) Validate() error {
	checks := []func() error{m.validateShape, m.validateZones, m.validateTimes, m.validateSeek}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func invalid(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidModel, field, fmt.Sprintf(format, args...))
}

func (m *Model) validateShape() error {
	switch {
	case m.Name == "":
		return invalid("name", "must not be empty")
	case m.Cylinders < 1 || m.Cylinders > MaxCylinders:
		return invalid("cylinders", "must be in 1..%d, got %d", MaxCylinders, m.Cylinders)
	case m.Surfaces < 1 || m.Surfaces > MaxSurfaces:
		return invalid("surfaces", "must be in 1..%d, got %d", MaxSurfaces, m.Surfaces)
	case len(m.Zones) == 0:
		return invalid("zones", "at least one zone is required")
	case len(m.Zones) > m.Cylinders:
		return invalid("zones", "%d zones for %d cylinders", len(m.Zones), m.Cylinders)
	}
	return nil
}

// validateZones checks that the zones cover 0..Cylinders-1 in order, with
// no gap and no overlap, and that each has a sane track.
func (m *Model) validateZones() error {
	next := 0
	for i, z := range m.Zones {
		f := func(name string) string { return fmt.Sprintf("zones[%d].%s", i, name) }
		switch {
		case z.FirstCyl != next:
			return invalid(f("first_cyl"), "must be %d (zones must cover the cylinders in order), got %d", next, z.FirstCyl)
		case z.LastCyl < z.FirstCyl || z.LastCyl >= m.Cylinders:
			return invalid(f("last_cyl"), "must be in %d..%d, got %d", z.FirstCyl, m.Cylinders-1, z.LastCyl)
		case z.SectorsPerTrack < 1 || z.SectorsPerTrack > MaxSectorsPerTrack:
			return invalid(f("sectors_per_track"), "must be in 1..%d, got %d", MaxSectorsPerTrack, z.SectorsPerTrack)
		case z.TrackSkew < 0 || z.TrackSkew >= z.SectorsPerTrack:
			return invalid(f("track_skew"), "must be in 0..sectors_per_track-1, got %d", z.TrackSkew)
		case z.CylSkew < 0 || z.CylSkew >= z.SectorsPerTrack:
			return invalid(f("cyl_skew"), "must be in 0..sectors_per_track-1, got %d", z.CylSkew)
		}
		next = z.LastCyl + 1
	}
	if next != m.Cylinders {
		return invalid(fmt.Sprintf("zones[%d].last_cyl", len(m.Zones)-1), "zones end at cylinder %d, but the disk has %d cylinders", next-1, m.Cylinders)
	}
	return nil
}

// checkTime accepts a finite time in [0, MaxTimeMs].
func checkTime(field string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxTimeMs {
		return invalid(field, "must be a finite time in 0..%g ms, got %v", MaxTimeMs, v)
	}
	return nil
}

func (m *Model) validateTimes() error {
	if math.IsNaN(m.RPM) || math.IsInf(m.RPM, 0) || m.RPM <= 0 || 60000/m.RPM > MaxTimeMs {
		return invalid("rpm", "must be positive and finite, got %v", m.RPM)
	}
	times := []struct {
		field string
		v     float64
	}{
		{"head_switch_ms", m.HeadSwitchMs},
		{"write_overhead_ms", m.WriteOverheadMs},
		{"read_overhead_ms", m.ReadOverheadMs},
		{"write_settle_ms", m.WriteSettleMs},
		{"seek.min_ms", m.Seek.MinMs},
	}
	for _, t := range times {
		if err := checkTime(t.field, t.v); err != nil {
			return err
		}
	}
	return nil
}

// validateSeek checks the table and that each piece of the curve stays a
// finite, non-negative time over the distances where it applies. Each
// piece is monotone in d, so checking its end points is enough.
func (m *Model) validateSeek() error {
	c := &m.Seek
	maxD := m.Cylinders - 1
	if len(c.Table) > maxD {
		return invalid("seek.table_ms", "has %d entries, but the longest seek is %d cylinders", len(c.Table), maxD)
	}
	for i, v := range c.Table {
		if err := checkTime(fmt.Sprintf("seek.table_ms[%d]", i), v); err != nil {
			return err
		}
	}
	if c.Boundary < 0 {
		return invalid("seek.boundary", "must not be negative, got %d", c.Boundary)
	}
	coeffs := []struct {
		field string
		v     float64
	}{{"seek.short_a_ms", c.ShortA}, {"seek.short_b_ms", c.ShortB}, {"seek.long_a_ms", c.LongA}, {"seek.long_b_ms", c.LongB}}
	for _, k := range coeffs {
		if math.IsNaN(k.v) || math.IsInf(k.v, 0) || math.Abs(k.v) > MaxTimeMs {
			return invalid(k.field, "must be finite and at most %g in size, got %v", MaxTimeMs, k.v)
		}
	}
	first := len(c.Table) + 1
	for _, d := range []int{first, c.Boundary - 1, c.Boundary, maxD} {
		if d < first || d > maxD {
			continue
		}
		field := "seek.long_a_ms/long_b_ms"
		if d < c.Boundary {
			field = "seek.short_a_ms/short_b_ms"
		}
		if err := checkTime(field, c.raw(d)); err != nil {
			return invalid(field, "the curve gives %v ms at %d cylinders; it must be a finite time >= 0", c.raw(d), d)
		}
	}
	return nil
}
