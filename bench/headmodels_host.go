package bench

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// HostConfig is the flat-profile check of issue 8: profile a file on the
// host's own (SSD-like) storage, then run the VLD on such a file with each
// head model and compare wall-clock time.
type HostConfig struct {
	Model       *disk.Model // the simulated geometry the volume is formatted with
	Dir         string      // where the files go; default os.TempDir()
	FileBytes   int64       // image and profile region size; default 64 MiB
	Updates     int         // measured synchronous updates per head and round; default 2000
	Utilization float64     // default 0.5
	Rounds      int         // fresh volumes per round, the heads taking turns (hostRound); default 3
	Seed        int64
	Profile     *profile.Profile // nil: measure the host with HostGrid
}

// HostGrid is the grid for real targets: skips 0..256 KiB in 4 KiB steps,
// think times 0..2 ms in 0.25 ms steps, five repetitions.
func HostGrid() (profile.Grid, int) {
	return profile.Grid{SkipStepBytes: 4096, Skips: 65, ThinkStepMs: 0.25, Thinks: 9}, 5
}

func (c *HostConfig) setDefaults() error {
	if c.Model == nil {
		return fmt.Errorf("host: no disk model: %w", disk.ErrInvalidModel)
	}
	if c.Dir == "" {
		c.Dir = os.TempDir()
	}
	if c.FileBytes == 0 {
		c.FileBytes = 64 << 20
	}
	if c.Updates <= 0 {
		c.Updates = 2000
	}
	if c.Utilization <= 0 {
		c.Utilization = 0.5
	}
	if c.Rounds <= 0 {
		c.Rounds = 3
	}
	if c.Profile == nil {
		p, err := ProfileHost(c.Dir, c.FileBytes, c.Seed)
		if err != nil {
			return err
		}
		c.Profile = p
	}
	return nil
}

// ProfileHost profiles a new file in dir (removed afterwards) with
// HostGrid, O_DSYNC and O_DIRECT where allowed, on the wall clock.
func ProfileHost(dir string, size, seed int64) (*profile.Profile, error) {
	path := filepath.Join(dir, fmt.Sprintf("vlfs-profile-%d-%d.img", os.Getpid(), time.Now().UnixNano()))
	f, err := profile.OpenFile(path, profile.FileOptions{Size: size})
	if err != nil {
		return nil, fmt.Errorf("host profile: %w", err)
	}
	defer f.Close()
	g, reps := HostGrid()
	return profile.Measure(context.Background(), f, profile.Config{
		Grid: g, Repetitions: reps, Seed: seed, Target: path, Tool: "vlfs bench headmodels",
	})
}

// Host runs the check. Every time in its rows is wall-clock.
func Host(cfg HostConfig) (*Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	rep := &Report{
		Bench: "headmodels-host", Disk: cfg.Model.Params(), Clock: ClockWall,
		Params: map[string]any{
			"file_bytes": cfg.FileBytes, "updates": cfg.Updates, "rounds": cfg.Rounds, "seed": cfg.Seed,
			"block_bytes": 4096, "profile": profileParams(cfg.Profile), "loadavg_start": loadAvg(),
		},
		Columns: []string{"head", "utilization", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "requests_per_update"},
		Notes: []string{
			"the VLD runs on a real file (O_DIRECT, one fdatasync per update) with the disk model's geometry for the oracle; each update is one synchronous 4 KiB write at a random offset (LogicalDisk.WriteSync), timed on the wall clock",
			"oracle: the simulated head, which on this device predicts nothing; profile: the host's own (flat) profile; none: update in place",
			"the three heads' volumes are open side by side and take turns of 50 updates (the first rotating), so drift of the host falls on all alike; each round starts from fresh volumes",
		},
	}
	heads := []string{HeadOracle, HeadProfile, HeadNone}
	samples := map[string][]float64{}
	reqs := map[string]float64{}
	for r := 0; r < cfg.Rounds; r++ {
		ms, rq, err := hostRound(cfg, heads, cfg.Seed+int64(r))
		if err != nil {
			return nil, err
		}
		for _, h := range heads {
			samples[h] = append(samples[h], ms[h]...)
			reqs[h] += rq[h] / float64(cfg.Rounds)
		}
	}
	for _, h := range heads {
		xs := samples[h]
		sort.Float64s(xs)
		var sum float64
		for _, x := range xs {
			sum += x
		}
		rep.Rows = append(rep.Rows, map[string]any{
			"head": h, "utilization": cfg.Utilization, "mean_ms": sum / float64(len(xs)),
			"p50_ms": pick(xs, 0.5), "p90_ms": pick(xs, 0.9), "p99_ms": pick(xs, 0.99), "requests_per_update": reqs[h],
		})
	}
	rep.Params["loadavg_end"] = loadAvg()
	return rep, nil
}

// pick is the q-quantile of sorted xs (nearest rank).
func pick(xs []float64, q float64) float64 {
	return xs[min(int(q*float64(len(xs))), len(xs)-1)]
}

// hostChunk is how many updates one head makes before the next takes
// over: the heads' volumes are open side by side and take turns, so that
// the host's drift (other jobs, its own disk's state) falls on all alike.
const hostChunk = 50

// hostRound prepares a volume per head and times cfg.Updates synchronous
// updates on each, in turns of hostChunk, the first head rotating.
func hostRound(cfg HostConfig, heads []string, seed int64) (map[string][]float64, map[string]float64, error) {
	vols := make([]*hostVolume, len(heads))
	defer func() {
		for _, v := range vols {
			if v != nil {
				v.close()
			}
		}
	}()
	for i, h := range heads {
		v, err := openHostVolume(cfg, h, seed)
		if err != nil {
			return nil, nil, err
		}
		vols[i] = v
	}
	ms, reqs := map[string][]float64{}, map[string]float64{}
	w0 := make([]int64, len(vols))
	for i, v := range vols {
		w0[i] = v.d.Volume().Stats().Writes
	}
	for turn, done := 0, 0; done < cfg.Updates; turn, done = turn+1, done+hostChunk {
		n := min(hostChunk, cfg.Updates-done)
		for k := range vols {
			i := (k + turn) % len(vols)
			xs, err := vols[i].updates(n)
			if err != nil {
				return nil, nil, err
			}
			ms[heads[i]] = append(ms[heads[i]], xs...)
		}
	}
	for i, v := range vols {
		reqs[heads[i]] = float64(v.d.Volume().Stats().Writes-w0[i]) / float64(cfg.Updates)
		if err := v.d.Check(); err != nil {
			return nil, nil, fmt.Errorf("host %s: %w", heads[i], err)
		}
	}
	return ms, reqs, nil
}

// hostVolume is one head's logical disk on its own image file.
type hostVolume struct {
	head string
	path string
	dev  device.Device
	d    *logical.Disk
	rng  *rand.Rand
	file int64
	one  [][]byte
}

// openHostVolume formats a new image file in cfg.Dir for head h, fills it
// to the utilisation and, for eager heads, warms up with cfg.Updates
// updates.
func openHostVolume(cfg HostConfig, h string, seed int64) (*hostVolume, error) {
	path := filepath.Join(cfg.Dir, fmt.Sprintf("vlfs-headmodels-%d-%s.img", os.Getpid(), h))
	dev, err := device.OpenFile(path, device.FileOptions{Create: true, Size: cfg.FileBytes, Direct: true})
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", h, err)
	}
	v := &hostVolume{head: h, path: path, dev: dev}
	fail := func(err error) (*hostVolume, error) {
		v.close()
		return nil, fmt.Errorf("host %s: %w", h, err)
	}
	// Write the whole file once: eager writes land on blocks never written
	// before, and in a sparse file each would also allocate an extent and
	// make fdatasync commit file-system metadata, which is not the
	// device's cost.
	if err := prefill(dev); err != nil {
		return fail(err)
	}
	place, opts := vld.PlaceEager, vld.Options{}
	switch h {
	case HeadNone:
		place = vld.PlaceInPlace
	case HeadProfile:
		opts.Head = cfg.Profile
	}
	if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: cfg.Model}, place); err != nil {
		return fail(err)
	}
	if v.d, err = logical.Open(noClose{dev}, opts); err != nil {
		return fail(err)
	}
	v.file = int64(float64(v.d.Blocks()) * cfg.Utilization)
	if err := fillLogical(v.d, v.file); err != nil {
		return fail(err)
	}
	v.rng = rand.New(rand.NewSource(seed))
	v.one = [][]byte{make([]byte, v.d.BlockSize())}
	v.rng.Read(v.one[0])
	if place == vld.PlaceEager {
		for i := 0; i < cfg.Updates; i++ {
			if err := v.d.WriteSync(v.rng.Int63n(v.file), v.one); err != nil {
				return fail(fmt.Errorf("warm-up: %w", err))
			}
		}
	}
	return v, nil
}

// updates times n synchronous updates at random offsets.
func (v *hostVolume) updates(n int) ([]float64, error) {
	ms := make([]float64, n)
	for i := range ms {
		l := v.rng.Int63n(v.file)
		t0 := time.Now()
		if err := v.d.WriteSync(l, v.one); err != nil {
			return nil, fmt.Errorf("host %s: %w", v.head, err)
		}
		ms[i] = float64(time.Since(t0)) / float64(time.Millisecond)
	}
	return ms, nil
}

func (v *hostVolume) close() {
	if v.d != nil {
		v.d.Volume().Close()
	}
	v.dev.Close()
	os.Remove(v.path)
}

// prefill writes zeros over the whole device and flushes.
func prefill(dev device.Device) error {
	chunk := device.AlignedBuffer(1 << 20)
	for off := int64(0); off < dev.Size(); off += int64(len(chunk)) {
		if _, err := dev.WriteAt(chunk[:min(int64(len(chunk)), dev.Size()-off)], off); err != nil {
			return err
		}
	}
	return dev.Flush()
}
