package crashtest

import (
	"fmt"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// Recording is one workload run on the crash-recording device: the record
// to build crash states from, and the oracle to judge them by.
type Recording struct {
	Dev    *device.Crash
	Oracle Oracle
	Errs   []error // per recorded op: what it returned (nil = success)
	comp   compactCount
	// RecordCommits counts the commits the ops made as log records
	// (file-system version 3): states between them test their replay.
	RecordCommits int64
	// afterOp is recordOptions.afterOp.
	afterOp func(i int)
}

// noClose keeps a file system from closing a device the harness reuses.
type noClose struct{ device.Device }

func (noClose) Close() error { return nil }

// mountOptions are the options of every mount the harness makes: no
// background commits, so commits happen only where the workload asks.
func mountOptions() vlfs.Options {
	return vlfs.Options{FlushInterval: time.Hour}
}

// recordOptions say how to record one workload.
type recordOptions struct {
	size int64
	mode string
	wrap func(device.Device) device.Device
	// afterOp, if set, is called after each recorded op (by its index),
	// before the oracle's snapshot: tests use it to see which device
	// writes an op made.
	afterOp func(i int)
}

// baseImage formats an image of size bytes, runs the setup ops on it and
// unmounts cleanly: the durable starting state.
func baseImage(w Workload, size int64) (*device.Mem, error) {
	model, err := disk.Preset(DefaultDisk)
	if err != nil {
		return nil, err
	}
	dev := device.NewMem(size)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: model}); err != nil {
		return nil, fmt.Errorf("mkfs: %w", err)
	}
	fs, err := vlfs.Mount(noClose{dev}, mountOptions())
	if err != nil {
		return nil, fmt.Errorf("mounting the fresh image: %w", err)
	}
	ex := executor{fs: fs}
	for i, op := range w.Setup {
		if err := ex.do(op, i); err != nil {
			fs.Close()
			return nil, fmt.Errorf("setup op %d (%s): %w: %w", i+1, op, err, ErrBadWorkload)
		}
	}
	if err := fs.Close(); err != nil {
		return nil, fmt.Errorf("unmounting after setup: %w", err)
	}
	return dev, nil
}

// Record runs w in the given mode: the setup on a fresh image, then the ops on a recording
// device, snapshotting the tree after each op, and finally a clean unmount
// (itself a persistence point: it commits everything).
func Record(w Workload, o recordOptions) (*Recording, error) {
	mo := mountOptions()
	if err := modeOptions(o.mode, &mo); err != nil {
		return nil, err
	}
	base, err := baseImage(w, o.size)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Dev: device.NewCrash(base), Oracle: Oracle{Ops: w.Ops}, afterOp: o.afterOp}
	var dev device.Device = noClose{rec.Dev}
	if o.wrap != nil {
		dev = o.wrap(dev)
	}
	fs, err := vlfs.Mount(dev, mo)
	if err != nil {
		return nil, fmt.Errorf("mounting the recording device: %w", err)
	}
	if err := rec.run(fs, w); err != nil {
		fs.Close()
		return nil, err
	}
	rec.RecordCommits = fs.Stats().RecordCommits
	if err := fs.Close(); err != nil {
		return nil, fmt.Errorf("unmount at the end of the workload: %w", err)
	}
	last := rec.Oracle.Points[len(rec.Oracle.Points)-1]
	rec.Oracle.Points = append(rec.Oracle.Points, Point{Label: "unmount", Tree: last.Tree, Acked: rec.Dev.Flushes()})
	return rec, nil
}

func (r *Recording) run(fs *vlfs.FS, w Workload) error {
	if err := r.point(fs, "setup", nil); err != nil {
		return err
	}
	ex := executor{fs: fs, comp: &r.comp}
	for i, op := range w.Ops {
		err := ex.do(op, len(w.Setup)+i)
		if r.afterOp != nil {
			r.afterOp(i)
		}
		r.Errs = append(r.Errs, err)
		if err := r.point(fs, fmt.Sprintf("op %d: %s", i+1, op), &op); err != nil {
			return err
		}
		if op.IsPersist() && err == nil {
			r.Oracle.Points[len(r.Oracle.Points)-1].Acked = r.Dev.Flushes()
		}
	}
	return nil
}

// point snapshots the tree after op (nil: the starting state, durable).
func (r *Recording) point(fs *vlfs.FS, label string, op *Op) error {
	t, err := snapshotTree(fs)
	if err != nil {
		return fmt.Errorf("oracle snapshot after %s: %w", label, err)
	}
	p := Point{Label: label, Tree: t, Acked: -1}
	if op == nil {
		p.Acked = 0
	}
	r.Oracle.Points = append(r.Oracle.Points, p)
	return nil
}
