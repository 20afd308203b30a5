package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vlfs/vlfs/diskfs"
	"github.com/vlfs/vlfs/vld"
)

// measureHooks run just before and just after the measured writes.
type measureHooks struct{ before, after func() error }

func noHooks() measureHooks {
	nop := func() error { return nil }
	return measureHooks{nop, nop}
}

// workload runs the benchmark's writes in an upper file system on a disk
// file: mkfs.ext4, mount, fill a file to u of the disk, warm up, measure.
func workload(cfg LogicalConfig, env logicalEnv, disk string, size int64, u float64, h measureHooks) (latency, error) {
	if err := mkfsExt4(disk); err != nil {
		return latency{}, err
	}
	dir, err := os.MkdirTemp(cfg.WorkDir, "vlfs-bench-fs-")
	if err != nil {
		return latency{}, err
	}
	defer os.Remove(dir)
	if err := env.mountUpper(disk, dir); err != nil {
		return latency{}, err
	}
	ms, err := fillAndWrite(cfg, env, filepath.Join(dir, "bench.dat"), size, u, h)
	if uerr := env.unmountUpper(dir); err == nil {
		err = uerr
	}
	if err == nil {
		err = waitReleased(disk)
	}
	return ms, err
}

func fillAndWrite(cfg LogicalConfig, env logicalEnv, file string, size int64, u float64, h measureHooks) (latency, error) {
	fileSize := int64(float64(size)*u) / 4096 * 4096
	if err := fillFile(file, fileSize, cfg.Seed); err != nil {
		return latency{}, err
	}
	if _, err := syncWrites(env.driver, cfg.Sync, file, fileSize, cfg.Warmup, cfg.Seed+1); err != nil {
		return latency{}, fmt.Errorf("warm-up: %w", err)
	}
	if err := h.before(); err != nil {
		return latency{}, err
	}
	ms, err := syncWrites(env.driver, cfg.Sync, file, fileSize, cfg.Writes, cfg.Seed+2)
	if err != nil {
		return latency{}, err
	}
	return ms, h.after()
}

// waitReleased waits until nothing holds the disk file any more: the
// loop device is detached, or fuse2fs has exited, a moment after the
// unmount returns.
func waitReleased(disk string) error {
	for i := 0; i < 250; i++ {
		hs, err := diskfs.Holders(disk)
		if err != nil || len(hs) == 0 {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	hs, _ := diskfs.Holders(disk)
	return fmt.Errorf("%s still in use after the unmount: %v", disk, hs)
}

// servedDisk is a Disk mounted by diskfs in a temporary directory.
type servedDisk struct {
	dir string
	srv *diskfs.Server
}

func serveDisk(cfg LogicalConfig, d diskfs.Disk) (*servedDisk, error) {
	dir, err := os.MkdirTemp(cfg.WorkDir, "vlfs-bench-disk-")
	if err != nil {
		return nil, err
	}
	srv, err := diskfs.Mount(dir, d, diskfs.Options{Logf: cfg.Logf})
	if err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &servedDisk{dir: dir, srv: srv}, nil
}

// stop unmounts (retrying while the kernel lets go of the file) and waits
// for the server.
func (s *servedDisk) stop() error {
	var err error
	for i := 0; i < 100; i++ {
		if err = s.srv.Unmount(); err == nil || !errors.Is(err, diskfs.ErrBusy) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	s.srv.Wait()
	return os.Remove(s.dir)
}

// logicalPoint measures one placement at one utilisation on a fresh
// simulated disk held in memory (the host's disk stays out of the wall
// clock), set up on the virtual clock and measured on cfg.Clock.
func logicalPoint(cfg LogicalConfig, env logicalEnv, p vld.Placement, u float64) (map[string]any, error) {
	cs, err := newClockSwitch(cfg.DiskBytes, vld.FormatOptions{Model: cfg.Model}, p, cfg.Head)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	sd, err := serveDisk(cfg, cs)
	if err != nil {
		return nil, err
	}
	var snaps []diskfs.Stats
	snap := func() error {
		snaps = append(snaps, sd.srv.Report().Disk)
		return nil
	}
	hooks := measureHooks{before: func() error {
		if cfg.Clock == vld.ClockReal {
			if err := cs.reopen(vld.ClockReal); err != nil {
				return err
			}
		}
		return snap()
	}, after: snap}
	wall, err := workload(cfg, env, sd.srv.DiskPath(), cs.Size(), u, hooks)
	if serr := sd.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	row := simRow(snaps[0], snaps[1], cfg.Writes)
	row["stack"], row["placement"], row["utilization"] = env.stack+"/FUSE/VLD", p.String(), u
	row["head_model"] = cs.headName()
	row["wall_ms_per_write"], row["wall_median_ms"] = wall.meanMs, wall.medianMs
	if p == vld.PlaceEager {
		row["vld_mapped_fraction"] = float64(snaps[1].MappedBlocks) / float64(snaps[1].LogicalBlocks)
	}
	cfg.Logf("%s %.0f %%: %.3f simulated ms, %.3f wall ms per write (median %.3f)", p, u*100, row["sim_ms_per_write"], wall.meanMs, wall.medianMs)
	return row, nil
}

// simRow turns two snapshots of the server's stats into per-write figures.
func simRow(a, b diskfs.Stats, n int) map[string]any {
	per := func(x, y float64) float64 { return (y - x) / float64(n) }
	return map[string]any{
		"sim_ms_per_write":        per(a.Sim.TotalMs, b.Sim.TotalMs),
		"sim_overhead_ms":         per(a.Sim.OverheadMs, b.Sim.OverheadMs),
		"sim_transfer_ms":         per(a.Sim.TransferMs, b.Sim.TransferMs),
		"sim_locate_ms":           per(a.Sim.LocateMs, b.Sim.LocateMs),
		"sim_other_ms":            per(a.Sim.OtherMs, b.Sim.OtherMs),
		"device_writes_per_write": per(float64(a.Writes), float64(b.Writes)),
		"device_reads_per_write":  per(float64(a.Reads), float64(b.Reads)),
		"flushes_per_write":       per(float64(a.Flushes), float64(b.Flushes)),
	}
}
