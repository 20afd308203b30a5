package bench

import (
	"fmt"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vld/sched"
	"github.com/vlfs/vlfs/vlfs"
)

// Placements are the three designs the smallfile and largefile benchmarks
// compare, inplace first: it is the baseline the others are normalised to.
var Placements = []vld.Placement{vld.PlaceInPlace, vld.PlaceEager, vld.PlaceLFS}

// fsEnv is vlfs on a memory image with the virtual clock: the in-process
// setting of the smallfile and largefile benchmarks. Requests are served
// one at a time (fifo) and the background flusher never fires, so the
// simulated times are deterministic.
type fsEnv struct {
	dev  *device.Mem
	fs   *vlfs.FS
	keep device.Device
	head *profile.Profile // nil: the simulated head
}

// newFSEnv formats and mounts; head (nil for the simulated head) places
// mkfs's writes and every mount's.
func newFSEnv(m *disk.Model, size int64, p vld.Placement, head *profile.Profile) (*fsEnv, error) {
	dev := device.NewMem(size)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Placement: p, Head: head}); err != nil {
		return nil, err
	}
	e := &fsEnv{dev: dev, keep: keepOpenDev{dev}, head: head}
	return e, e.mount()
}

func (e *fsEnv) mount() error {
	fs, err := mountVLFS(e.keep, vlfs.Options{FlushInterval: 1000 * time.Hour}, func(vo *vld.Options) {
		vo.Batch, vo.Head = sched.Batch{Mode: sched.BatchFIFO}, e.head
	})
	if err != nil {
		return fmt.Errorf("mount: %w", err)
	}
	e.fs = fs
	return nil
}

// remount closes and mounts again: the cache flush between phases.
func (e *fsEnv) remount() error {
	if err := e.fs.Close(); err != nil {
		return fmt.Errorf("unmount: %w", err)
	}
	return e.mount()
}

func (e *fsEnv) close() error { return e.fs.Close() }

// nowMs is the simulated clock.
func (e *fsEnv) nowMs() float64 { return e.fs.Stats().Vol.SimNowMs }

// phase runs f and returns the simulated ms it took.
func (e *fsEnv) phase(f func() error) (float64, error) {
	t0 := e.nowMs()
	if err := f(); err != nil {
		return 0, err
	}
	return e.nowMs() - t0, nil
}

// keepOpenDev lets the image outlive an unmount.
type keepOpenDev struct{ device.Device }

func (keepOpenDev) Close() error { return nil }

// phaseRow is one row of the smallfile and largefile reports. head_model
// is what the mounted volume says it places by (vld.Volume.HeadModel), so
// a --head that never reached the volume shows.
func (e *fsEnv) phaseRow(p vld.Placement, phase string, ms float64, bytes int64) map[string]any {
	row := map[string]any{"placement": p.String(), "phase": phase, "time_ms": ms, "mb_s": 0.0, "head_model": e.fs.Stats().Vol.HeadModel}
	if ms > 0 {
		row["mb_s"] = float64(bytes) / (1 << 20) / (ms / 1000)
	}
	return row
}

// normalise adds "normalized": the speed of each row relative to inplace
// in the same phase (inplace time / this time; > 1 is faster), as Figures
// 6 and 7 of the virtual-log paper show.
func normalise(rows []map[string]any) {
	base := map[string]float64{}
	for _, r := range rows {
		if r["placement"] == vld.PlaceInPlace.String() {
			base[r["phase"].(string)] = r["time_ms"].(float64)
		}
	}
	for _, r := range rows {
		b, ok := base[r["phase"].(string)]
		if t := r["time_ms"].(float64); ok && t > 0 {
			r["normalized"] = b / t
		}
	}
}
