package bench

import (
	"fmt"
	"math/rand"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// idleResult is one point of the idle sweep.
type idleResult struct {
	on             bool
	burstKB        int
	idleMs         float64
	updates        int     // measured
	latencyMs      float64 // sum over measured updates
	waits          meanCI  // per measured idle interval
	waitMax        float64
	stepMax        float64
	moved          int64     // blocks moved during the measured cycles
	fg             vld.Stats // foreground requests of the measured bursts (deltas)
	headModel      string    // vld.Volume.HeadModel of the volume measured
	cycles         int
	emptyTracksEnd int
}

func (r *idleResult) meanMs() float64 { return r.latencyMs / float64(r.updates) }

func (r *idleResult) row(m *disk.Model, u, emptyMs float64) map[string]any {
	onoff := "off"
	if r.on {
		onoff = "on"
	}
	row := map[string]any{
		"disk": m.Name, "system": "logical-disk", "placement": vld.PlaceEager.String(), "compactor": onoff, "head_model": r.headModel,
		"burst_kb": r.burstKB, "idle_ms": r.idleMs, "utilization": u,
		"mean_ms": r.meanMs(), "vs_empty": r.meanMs() / emptyMs,
		"empty_tracks":          r.emptyTracksEnd,
		"locate_ms":             r.fg.Sim.LocateMs / float64(r.updates),
		"requests_per_update":   float64(r.fg.Writes) / float64(r.updates),
		"blocks_per_update":     kibBlocks(r.fg.SectorsWritten) / float64(r.updates),
		"checkpoints_per_burst": float64(r.fg.Checkpoints) / float64(r.cycles),
	}
	if r.on {
		wm := 0.0
		if r.waits.n > 0 {
			wm = r.waits.mean()
		}
		row["wait_mean_ms"], row["wait_max_ms"], row["step_max_ms"] = wm, r.waitMax, r.stepMax
		row["moved_per_burst"] = float64(r.moved) / float64(max(r.cycles, 1))
	}
	return row
}

// openLogical formats (img == nil) or copies img and opens a logical disk.
func openLogical(cfg IdleConfig, m *disk.Model, img []byte) (*logical.Disk, *device.Mem, error) {
	var dev *device.Mem
	if img == nil {
		dev = device.NewMem(cfg.DiskBytes)
		if err := logical.Format(dev, vld.FormatOptions{Model: m}); err != nil {
			return nil, nil, err
		}
	} else {
		dev = device.MemFrom(img)
	}
	d, err := logical.Open(dev, vld.Options{Head: cfg.Head, LogWindow: cfg.LogWindow})
	return d, dev, err
}

// fileBlocks is the size of the updated file at utilisation u.
func fileBlocks(d *logical.Disk, u float64) int64 { return int64(float64(d.Blocks()) * u) }

// writeFile writes logical blocks [0, n) in 64-block requests and syncs.
func writeFile(d *logical.Disk, n int64) error {
	chunk := make([][]byte, 64)
	for i := range chunk {
		chunk[i] = make([]byte, d.BlockSize())
	}
	for l := int64(0); l < n; l += 64 {
		if err := d.Write(l, chunk[:min(64, n-l)]); err != nil {
			return fmt.Errorf("writing the file: %w", err)
		}
	}
	return d.Sync()
}

// fragmentedImage is the starting state of every point at cfg.Utilization:
// the file written, then updated at random as many times as it has blocks
// with no idle time, so that free space is scattered and the empty tracks
// are used up; then closed cleanly.
func fragmentedImage(cfg IdleConfig, m *disk.Model) ([]byte, error) {
	d, dev, err := openLogical(cfg, m, nil)
	if err != nil {
		return nil, err
	}
	n := fileBlocks(d, cfg.Utilization)
	if err := writeFile(d, n); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(cfg.Seed + 1))
	one := [][]byte{make([]byte, d.BlockSize())}
	for i := int64(0); i < n; i++ {
		if err := d.WriteSync(rng.Int63n(n), one); err != nil {
			return nil, fmt.Errorf("fragmenting: %w", err)
		}
	}
	if err := d.Close(); err != nil {
		return nil, err
	}
	return dev.Bytes(), nil
}

// idleEmptyPoint is the empty-disk latency for one burst size: the same
// bursts, back to back, updating a small file: 1 % of the logical disk, or
// the largest burst if that is bigger. (A file as small as one 128 KiB
// burst would keep rewriting the holes of one track.)
func idleEmptyPoint(cfg IdleConfig, m *disk.Model, burstKB int) (*idleResult, error) {
	d, _, err := openLogical(cfg, m, nil)
	if err != nil {
		return nil, err
	}
	defer d.Volume().Close()
	n := emptyFileBlocks(cfg, d)
	if err := writeFile(d, n); err != nil {
		return nil, err
	}
	return runBursts(cfg, d, nil, n, burstKB, 0)
}

// idlePoint runs bursts separated by idleMs on a copy of the fragmented
// image, with the compactor on or off.
func idlePoint(cfg IdleConfig, m *disk.Model, img []byte, burstKB int, idleMs float64, on bool) (*idleResult, error) {
	d, _, err := openLogical(cfg, m, img)
	if err != nil {
		return nil, err
	}
	defer d.Volume().Close()
	var c *compactor.Compactor
	if on {
		if c, err = compactor.New(compactor.Logical(d), cfg.Compactor); err != nil {
			return nil, err
		}
	}
	return runBursts(cfg, d, c, fileBlocks(d, cfg.Utilization), burstKB, idleMs)
}

// runBursts runs warm-up bursts, then measured ones, each followed by
// idleMs of think time (handed to c if not nil). A burst's updates arrive
// back to back, the first one when the think time ends; its latency runs
// from there, so it includes any wait for a compaction step in flight.
func runBursts(cfg IdleConfig, d *logical.Disk, c *compactor.Compactor, file int64, burstKB int, idleMs float64) (*idleResult, error) {
	per := burstKB / 4
	bursts := max((cfg.Updates+per-1)/per, 4)
	rng := rand.New(rand.NewSource(cfg.Seed))
	one := [][]byte{make([]byte, d.BlockSize())}
	v := d.Volume()
	r := &idleResult{on: c != nil, burstKB: burstKB, idleMs: idleMs, headModel: v.HeadModel()}
	arrive := v.NowMs()
	var moved0 int64
	for i := 0; i < 2*bursts; i++ {
		measured := i >= bursts
		if i == bursts && c != nil {
			moved0 = c.Stats().BlocksMoved
		}
		s0 := v.Stats()
		for j := 0; j < per; j++ {
			if err := d.WriteSync(rng.Int63n(file), one); err != nil {
				return nil, fmt.Errorf("burst %d update %d: %w", i, j, err)
			}
		}
		if measured {
			s1 := v.Stats()
			r.fg.Writes += s1.Writes - s0.Writes
			r.fg.SectorsWritten += s1.SectorsWritten - s0.SectorsWritten
			r.fg.Checkpoints += s1.Checkpoints - s0.Checkpoints
			r.fg.Sim.LocateMs += s1.Sim.LocateMs - s0.Sim.LocateMs
			r.latencyMs += v.NowMs() - arrive
			r.updates += per
			r.cycles++
		}
		wait, err := think(v, c, idleMs)
		if err != nil {
			return nil, err
		}
		if measured && c != nil {
			r.waits.add(wait)
			r.waitMax = max(r.waitMax, wait)
		}
		arrive = v.NowMs() - wait
	}
	if c != nil {
		s := c.Stats()
		r.moved, r.stepMax = s.BlocksMoved-moved0, s.MaxStepMs
	}
	r.emptyTracksEnd = v.EmptyTracks()
	return r, nil
}

// think hands the idle time to the compactor, or lets it pass.
func think(v *vld.Volume, c *compactor.Compactor, ms float64) (float64, error) {
	if c == nil {
		v.Idle(ms)
		return 0, nil
	}
	return c.Think(ms)
}

// emptyFileBlocks is the file size of the utilization-0 rows.
func emptyFileBlocks(cfg IdleConfig, d *logical.Disk) int64 {
	n := d.Blocks() / 100
	for _, b := range cfg.BurstKB {
		n = max(n, int64(b/4))
	}
	return min(n, d.Blocks())
}
