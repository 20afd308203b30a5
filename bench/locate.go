package bench

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/vlfs/vlfs/vld/disk"
)

// Defaults of the locate benchmark.
const (
	DefaultLocateSamples = 50000
	DefaultLocateWindow  = 100 // cylinders
)

// LocateConfig configures Locate. Zero values pick the defaults.
type LocateConfig struct {
	Model           *disk.Model
	UnitSectors     int       // allocation unit in sectors; 0 means 1, the paper's Figure 1
	Samples         int       // head positions per utilization
	Seed            int64     // random seed; the run is deterministic for a seed
	WindowCylinders int       // simulated cylinders from cylinder 0, within zone 0
	Utilizations    []float64 // nil means 0.1, 0.2, ..., 0.9
}

func (c *LocateConfig) defaults() error {
	if c.Model == nil {
		return fmt.Errorf("bench locate: no disk model")
	}
	if c.UnitSectors == 0 {
		c.UnitSectors = 1
	}
	if c.UnitSectors < 0 {
		return fmt.Errorf("bench locate: unit-sectors must be positive, got %d", c.UnitSectors)
	}
	if c.Samples == 0 {
		c.Samples = DefaultLocateSamples
	}
	if c.Samples < 0 {
		return fmt.Errorf("bench locate: samples must be positive, got %d", c.Samples)
	}
	zone0 := c.Model.Zones[0].Cylinders()
	if c.WindowCylinders <= 0 {
		c.WindowCylinders = DefaultLocateWindow
	}
	c.WindowCylinders = min(c.WindowCylinders, zone0)
	if c.Utilizations == nil {
		for i := 1; i <= 9; i++ {
			c.Utilizations = append(c.Utilizations, float64(i)/10)
		}
	}
	for _, u := range c.Utilizations {
		if !(u >= 0 && u < 1) {
			return fmt.Errorf("bench locate: utilization must be in [0,1), got %v", u)
		}
	}
	return nil
}

// Locate reproduces Figure 1 of the virtual-log paper: the simulated time
// to reach the nearest free unit from a random head position, for each
// utilization, against the single-cylinder model of formulas (2)-(4).
//
// The simulated region is the first WindowCylinders cylinders of zone 0
// (one density, as the paper's model assumes). For each utilization a
// fresh random fill marks that fraction of the region's units used. Each
// sample puts the head on a random track of the region at a random unit
// boundary and searches the current cylinder and then the next cylinders
// in one sweep direction (wrapping to the region's start, as the VLD
// does at the disk's end), pricing every candidate with
// Layout.PositionMs for a write; it stops once a cylinder's seek alone
// costs more than the best found, so the answer is the true nearest free
// unit in the region.
func Locate(cfg LocateConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	m := cfg.Model
	bs := cfg.UnitSectors * disk.SectorSize
	bpt := m.Zones[0].SectorsPerTrack / cfg.UnitSectors
	l, err := disk.NewLayout(m, bs, int64(cfg.WindowCylinders)*int64(m.Surfaces)*int64(bpt))
	if err != nil {
		return nil, fmt.Errorf("bench locate: %w", err)
	}
	rep := locateReport(cfg, l)
	rng := rand.New(rand.NewSource(cfg.Seed))
	s := newLocateSearch(newRegion(l))
	unitMs := l.BlockMs(0)
	switchUnits := (m.HeadSwitchMs + m.WriteSettleMs) / unitMs
	for _, u := range cfg.Utilizations {
		s.r.fill(rng, u)
		var acc meanCI
		for range cfg.Samples {
			acc.add(s.sample(rng))
		}
		model := disk.LocateModel(bpt, m.Surfaces, 1-u, switchUnits) * unitMs
		rep.Rows = append(rep.Rows, map[string]any{
			"utilization":  u,
			"simulated_ms": acc.mean(),
			"ci95_ms":      acc.ci95(),
			"model_ms":     model,
			"diff_pct":     diffPct(acc.mean(), model),
		})
	}
	return rep, nil
}

func locateReport(cfg LocateConfig, l *disk.Layout) *Report {
	m := cfg.Model
	d := m.Params()
	d["unit_sectors"] = cfg.UnitSectors
	d["units_per_track"] = l.TrackBlocks(0)
	d["unit_ms"] = l.BlockMs(0)
	d["switch_units"] = (m.HeadSwitchMs + m.WriteSettleMs) / l.BlockMs(0)
	return &Report{
		Bench: "locate",
		Disk:  d,
		Clock: ClockSimulated,
		Params: map[string]any{
			"samples":          cfg.Samples,
			"seed":             cfg.Seed,
			"window_cylinders": cfg.WindowCylinders,
		},
		Columns: []string{"utilization", "simulated_ms", "ci95_ms", "model_ms", "diff_pct"},
		Notes: []string{
			fmt.Sprintf("region: cylinders 0-%d of zone 0, all %d surfaces; units used at random", cfg.WindowCylinders-1, m.Surfaces),
			"simulated_ms: mean positioning time (seek/switch + rotation, write) to the nearest free unit from a random track at a random unit boundary, searching forward cylinders",
			"model_ms: formulas (2)-(4), head switch rounded up to whole units, times the unit's rotation time",
		},
	}
}

// locateSearch finds the nearest free unit from random head positions.
type locateSearch struct {
	r      *region
	cyls   int
	settle float64
	// sufMin[d] = min seek over distances d..cyls-1, preMin[d] over 1..d:
	// lower bounds that let the sweep stop early.
	sufMin, preMin []float64
}

func newLocateSearch(r *region) *locateSearch {
	m := r.l.Model()
	n := r.l.NumCylinders()
	s := &locateSearch{r: r, cyls: n, settle: m.WriteSettleMs,
		sufMin: make([]float64, n+1), preMin: make([]float64, n)}
	s.sufMin[n] = math.Inf(1)
	for d := n - 1; d >= 1; d-- {
		s.sufMin[d] = math.Min(s.sufMin[d+1], m.SeekMs(d))
	}
	if n > 0 {
		s.preMin[0] = math.Inf(1)
	}
	for d := 1; d < n; d++ {
		s.preMin[d] = math.Min(s.preMin[d-1], m.SeekMs(d))
	}
	return s
}

// sample draws a head position and returns the time to the nearest free
// unit. The start time puts a unit boundary of the head's track exactly
// under the head. Why: the model counts whole units skipped (x = 0 means
// the unit under the head is free and costs nothing), and its head-switch
// cost is a whole number of units. From a random instant instead, every
// write would first wait for the next unit boundary, about half a unit on
// average, which the model does not have: at low utilization, where the
// model's delay is a small fraction of a unit, that alone would multiply
// the simulated time several-fold.
func (s *locateSearch) sample(rng *rand.Rand) float64 {
	l := s.r.l
	c0 := rng.Intn(s.cyls)
	tr := l.TrackOfCylSurf(c0, rng.Intn(l.Model().Surfaces))
	unit := l.TrackStart(tr) + int64(rng.Intn(l.TrackBlocks(tr)))
	start := (float64(rng.Intn(1<<20)) + l.BlockPhase(unit)) * l.RotationMs()
	h := disk.Head{Cyl: c0, Surf: tr - l.TrackOfCylSurf(c0, 0)}
	best := s.cylinderBest(h, start, c0, math.Inf(1))
	for c := c0 + 1; c < s.cyls && s.sufMin[c-c0]+s.settle < best; c++ {
		best = s.cylinderBest(h, start, c, best)
	}
	if c0 > 0 && s.preMin[c0]+s.settle < best { // wrapped part of the sweep
		for c := 0; c < c0; c++ {
			if l.Model().SeekMs(c0-c)+s.settle < best {
				best = s.cylinderBest(h, start, c, best)
			}
		}
	}
	return best
}

// cylinderBest lowers best to the cheapest free unit on cylinder c.
func (s *locateSearch) cylinderBest(h disk.Head, start float64, c int, best float64) float64 {
	l := s.r.l
	for surf := range l.Model().Surfaces {
		t := l.TrackOfCylSurf(c, surf)
		if t >= l.NumTracks() || l.MoveMs(h, t, true) >= best {
			continue
		}
		best = math.Min(best, s.r.bestOnTrack(h, start, t, true))
	}
	return best
}
