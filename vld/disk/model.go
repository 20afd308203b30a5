package disk

// SectorSize is the disk's addressable unit in bytes. Layout block sizes are
// multiples of it.
const SectorSize = 512

// Zone is a band of cylinders with the same number of sectors per track.
// Skews are in sectors: TrackSkew shifts sector 0 of each next surface in a
// cylinder, CylSkew shifts sector 0 when moving from the last surface of a
// cylinder to the first surface of the next one, so that a sequential
// transfer survives a head switch or a one-cylinder seek without losing a
// revolution.
type Zone struct {
	FirstCyl        int `json:"first_cyl"`
	LastCyl         int `json:"last_cyl"`
	SectorsPerTrack int `json:"sectors_per_track"`
	TrackSkew       int `json:"track_skew"`
	CylSkew         int `json:"cyl_skew"`
}

// Cylinders is the number of cylinders in the zone.
func (z Zone) Cylinders() int { return z.LastCyl - z.FirstCyl + 1 }

// SeekCurve gives the seek time in ms for a distance of d >= 1 cylinders:
// Table[d-1] when d <= len(Table); otherwise ShortA+ShortB*sqrt(d) when
// d < Boundary, else LongA+LongB*d. The result is clamped from below at
// MinMs (the virtual-log paper's "minimum seek"). This is the shape of the
// Ruemmler-Wilkes model and of DiskSim's table-plus-curve seek type.
type SeekCurve struct {
	Table    []float64 `json:"table_ms,omitempty"`
	Boundary int       `json:"boundary"`
	ShortA   float64   `json:"short_a_ms"`
	ShortB   float64   `json:"short_b_ms"`
	LongA    float64   `json:"long_a_ms"`
	LongB    float64   `json:"long_b_ms"`
	MinMs    float64   `json:"min_ms"`
}

// Model describes one disk drive. All times are milliseconds.
type Model struct {
	Name            string    `json:"name"`
	Source          string    `json:"source,omitempty"` // where the figures come from
	Cylinders       int       `json:"cylinders"`
	Surfaces        int       `json:"surfaces"` // tracks per cylinder
	Zones           []Zone    `json:"zones"`    // in cylinder order, covering 0..Cylinders-1
	RPM             float64   `json:"rpm"`
	Seek            SeekCurve `json:"seek"`
	HeadSwitchMs    float64   `json:"head_switch_ms"`
	WriteOverheadMs float64   `json:"write_overhead_ms"` // controller overhead per write command
	ReadOverheadMs  float64   `json:"read_overhead_ms"`  // controller overhead per read command (cache miss)
	WriteSettleMs   float64   `json:"write_settle_ms"`   // extra settling after any head movement before a write
}

// RotationMs is the time of one revolution.
func (m *Model) RotationMs() float64 { return 60000 / m.RPM }

// CapacityBytes is the size of all sectors of all zones.
func (m *Model) CapacityBytes() int64 {
	var sectors int64
	for _, z := range m.Zones {
		sectors += int64(z.Cylinders()) * int64(m.Surfaces) * int64(z.SectorsPerTrack)
	}
	return sectors * SectorSize
}

// ZoneOf returns the index of the zone holding cylinder cyl, or -1.
func (m *Model) ZoneOf(cyl int) int {
	for i, z := range m.Zones {
		if cyl >= z.FirstCyl && cyl <= z.LastCyl {
			return i
		}
	}
	return -1
}

// MediaRateBytesPerMs is the outer zone's media transfer rate.
func (m *Model) MediaRateBytesPerMs() float64 {
	return float64(m.Zones[0].SectorsPerTrack*SectorSize) / m.RotationMs()
}

// Params is a flat summary of the model for benchmark reports. Keys are
// snake_case with the unit in the name; figures that depend on zones are
// those of the outer zone (zone 0).
func (m *Model) Params() map[string]any {
	z := m.Zones[0]
	return map[string]any{
		"name":                m.Name,
		"cylinders":           m.Cylinders,
		"surfaces":            m.Surfaces,
		"tracks_per_cylinder": m.Surfaces,
		"zones":               len(m.Zones),
		"sectors_per_track":   z.SectorsPerTrack,
		"track_skew_sectors":  z.TrackSkew,
		"cyl_skew_sectors":    z.CylSkew,
		"rpm":                 m.RPM,
		"rotation_ms":         m.RotationMs(),
		"head_switch_ms":      m.HeadSwitchMs,
		"overhead_ms":         m.WriteOverheadMs,
		"write_overhead_ms":   m.WriteOverheadMs,
		"read_overhead_ms":    m.ReadOverheadMs,
		"write_settle_ms":     m.WriteSettleMs,
		"min_seek_ms":         m.Seek.MinMs,
		"seek_1cyl_ms":        m.SeekMs(1),
		"seek_full_ms":        m.SeekMs(m.Cylinders - 1),
		"capacity_bytes":      m.CapacityBytes(),
		"media_rate_mb_s":     m.MediaRateBytesPerMs() / 1000,
	}
}

// clone returns a deep copy of m.
func (m *Model) clone() *Model {
	c := *m
	c.Zones = append([]Zone(nil), m.Zones...)
	c.Seek.Table = append([]float64(nil), m.Seek.Table...)
	return &c
}
