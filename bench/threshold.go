package bench

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/vlfs/vlfs/vld/disk"
)

// DefaultThresholdWrites is the minimum number of writes simulated per
// threshold.
const DefaultThresholdWrites = 200000

// ThresholdConfig configures Threshold. Zero values pick the defaults.
type ThresholdConfig struct {
	Model       *disk.Model
	UnitSectors int       // allocation unit in sectors; 0 means 1 (per sector, as the paper)
	Writes      int       // at least this many writes per threshold
	Seed        int64     // random seed; the run is deterministic for a seed
	Thresholds  []float64 // fractions of a track's units kept free; nil means the default list
}

// DefaultThresholds spans Figure 2's axis, denser where the curve bends.
func DefaultThresholds() []float64 {
	return []float64{0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
}

func (c *ThresholdConfig) defaults() error {
	if c.Model == nil {
		return fmt.Errorf("bench threshold: no disk model")
	}
	if c.UnitSectors == 0 {
		c.UnitSectors = 1
	}
	if c.UnitSectors < 0 {
		return fmt.Errorf("bench threshold: unit-sectors must be positive, got %d", c.UnitSectors)
	}
	if c.Writes == 0 {
		c.Writes = DefaultThresholdWrites
	}
	if c.Writes < 0 {
		return fmt.Errorf("bench threshold: writes must be positive, got %d", c.Writes)
	}
	if c.Thresholds == nil {
		c.Thresholds = DefaultThresholds()
	}
	for _, th := range c.Thresholds {
		if !(th >= 0 && th < 1) {
			return fmt.Errorf("bench threshold: threshold must be in [0,1), got %v", th)
		}
	}
	return nil
}

// Threshold reproduces Figure 2 of the virtual-log paper: the mean latency
// to locate free units for all writes to an initially empty track, against
// the track switch threshold (the fraction m/n of the track's n units
// kept free before switching), compared with formula (13) and with (11),
// its random-free-space form.
//
// Writes arrive one at a time at a random unit boundary of the current
// track (see locateSearch.sample for why a boundary) and each takes the
// first free unit in rotational order, priced with Layout.PositionMs.
// When only m units remain free the head switches to a fresh empty track
// (the next surface of cylinder 0, so the cost is one head switch, priced
// with Layout.MoveMs) and the new track is filled the same way.
func Threshold(cfg ThresholdConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	m := cfg.Model
	bpt := m.Zones[0].SectorsPerTrack / cfg.UnitSectors
	tracks := min(2, m.Cylinders) * m.Surfaces // cylinder 0, and 1 for a one-surface disk
	l, err := disk.NewLayout(m, cfg.UnitSectors*disk.SectorSize, int64(tracks*bpt))
	if err != nil {
		return nil, fmt.Errorf("bench threshold: %w", err)
	}
	f := newTrackFiller(l)
	rng := rand.New(rand.NewSource(cfg.Seed))
	rep := thresholdReport(cfg, l, f.switchMs)
	for _, th := range cfg.Thresholds {
		keep := min(int(math.Round(th*float64(bpt))), bpt-1)
		var perTrack meanCI
		for writes := 0; writes < cfg.Writes; writes += bpt - keep {
			perTrack.add(f.fillTrack(rng, keep) / float64(bpt-keep))
		}
		model := disk.ThresholdModel(bpt, keep, f.switchMs, l.BlockMs(0))
		rep.Rows = append(rep.Rows, map[string]any{
			"threshold":       th,
			"reserved_units":  keep,
			"simulated_ms":    perTrack.mean(),
			"ci95_ms":         perTrack.ci95(),
			"model_ms":        model,
			"model_random_ms": disk.ThresholdModelRandom(bpt, keep, f.switchMs, l.BlockMs(0)),
			"diff_pct":        diffPct(perTrack.mean(), model),
		})
	}
	return rep, nil
}

func thresholdReport(cfg ThresholdConfig, l *disk.Layout, switchMs float64) *Report {
	d := cfg.Model.Params()
	d["unit_sectors"] = cfg.UnitSectors
	d["units_per_track"] = l.TrackBlocks(0)
	d["unit_ms"] = l.BlockMs(0)
	d["switch_ms"] = switchMs
	return &Report{
		Bench:   "threshold",
		Disk:    d,
		Clock:   ClockSimulated,
		Params:  map[string]any{"writes": cfg.Writes, "seed": cfg.Seed},
		Columns: []string{"threshold", "reserved_units", "simulated_ms", "ci95_ms", "model_ms", "model_random_ms", "diff_pct"},
		Notes: []string{
			"threshold: fraction of a track's units left free when the writer switches to an empty track",
			"simulated_ms: mean locate time per write (rotation + the switch cost shared over the track's writes)",
			"model_ms: formula (13) with eps (12); model_random_ms: formula (11), free space assumed random",
		},
	}
}

// trackFiller fills tracks of cylinder 0 one after the other.
type trackFiller struct {
	r        *region
	tracks   []int // the tracks it cycles through
	cur      int   // index into tracks
	switchMs float64
}

func newTrackFiller(l *disk.Layout) *trackFiller {
	f := &trackFiller{r: newRegion(l)}
	for t := range l.NumTracks() {
		if c, _ := l.CylSurf(t); c == 0 || l.Model().Surfaces == 1 {
			f.tracks = append(f.tracks, t)
		}
	}
	f.switchMs = l.MoveMs(f.head(0), f.tracks[1%len(f.tracks)], true)
	return f
}

func (f *trackFiller) head(i int) disk.Head {
	c, s := f.r.l.CylSurf(f.tracks[i])
	return disk.Head{Cyl: c, Surf: s}
}

// fillTrack writes an empty track until keep units are free, then switches
// to the next track; it returns the total locate time, switch included.
func (f *trackFiller) fillTrack(rng *rand.Rand, keep int) float64 {
	l := f.r.l
	t := f.tracks[f.cur]
	h := f.head(f.cur)
	base, nb := l.TrackStart(t), l.TrackBlocks(t)
	for i := range nb {
		f.r.used[base+int64(i)] = false
	}
	var total float64
	for free := nb; free > keep; free-- {
		j := rng.Intn(nb)
		start := (float64(rng.Intn(1<<20)) + l.BlockPhase(base+int64(j))) * l.RotationMs()
		u := f.r.nextFree(t, j)
		total += l.PositionMs(h, start, base+int64(u), true)
		f.r.used[base+int64(u)] = true
	}
	f.cur = (f.cur + 1) % len(f.tracks)
	return total + l.MoveMs(h, f.tracks[f.cur], true)
}
