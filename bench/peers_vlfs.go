package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// vlfsTarget is vlfs served in this process (vlfs/fusefs) from an image
// file, on the virtual disk clock: the simulated disk costs no wall time,
// so what is measured is vlfs, FUSE and the host file under the image.
type vlfsTarget struct {
	base, img, mnt string
	fs             *vlfs.FS
	srv            *fusefs.Server
	compactor      *compactor.Background // the mount's, if started (fullness_target.go)
	stopProfile    func()
}

func startVLFS(cfg PeersConfig, base string) (peerTarget, error) {
	t := &vlfsTarget{base: base, img: filepath.Join(base, "vlfs.img"), mnt: filepath.Join(base, "mnt")}
	if err := mkfsVLFS(cfg, t.img); err != nil {
		return nil, err
	}
	if err := os.Mkdir(t.mnt, 0o755); err != nil {
		return nil, err
	}
	o := vlfs.Options{Logf: cfg.Logf, WriteThroughBytes: vlfs.DefaultWriteThrough}
	vo := vlfs.VolumeOptions(o)
	vo.Head = cfg.Head
	if err := t.mount(vo, o); err != nil {
		return nil, err
	}
	var stops []func()
	if cfg.CPUProfile != "" {
		stop, err := startCPUProfile(cfg.CPUProfile)
		if err != nil {
			t.stop()
			return nil, err
		}
		stops = append(stops, stop)
	}
	if cfg.ProfileDir != "" {
		stops = append(stops, writeContentionProfiles(cfg.ProfileDir, cfg.Logf))
	}
	t.stopProfile = func() {
		for _, stop := range stops {
			stop()
		}
	}
	return t, nil
}

// mount serves t.img on t.mnt in this process with opts.
func (t *vlfsTarget) mount(vo vld.Options, opts vlfs.Options) error {
	var err error
	if t.fs, err = t.open(vo, opts); err != nil {
		return err
	}
	t.srv, err = fusefs.Mount(t.mnt, t.fs, fusefs.Options{Options: fuseserve.Options{FSName: t.img, Image: t.img, Logf: opts.Logf}})
	if err != nil {
		t.fs.Close()
		return err
	}
	return nil
}

// open mounts t.img as a vlfs.FS on a volume opened with vo, unserved.
func (t *vlfsTarget) open(vo vld.Options, opts vlfs.Options) (*vlfs.FS, error) {
	dev, err := device.OpenFile(t.img, device.FileOptions{ReadOnly: opts.ReadOnly, WritebackBytes: device.DefaultWritebackBytes})
	if err != nil {
		return nil, err
	}
	return vlfs.MountWith(dev, vo, opts) // it closes dev on failure
}

// mountVLFS mounts dev with o on a volume of vlfs's default options as
// with changes them (the benchmark's choice of head model, clock, batching
// or log window; nil: none).
func mountVLFS(dev device.Device, o vlfs.Options, with func(*vld.Options)) (*vlfs.FS, error) {
	vo := vlfs.VolumeOptions(o)
	if with != nil {
		with(&vo)
	}
	return vlfs.MountWith(dev, vo, o)
}

// mkfsVLFS formats a new image as `vlfs mkfs --size` does.
func mkfsVLFS(cfg PeersConfig, img string) error {
	if err := makeImage(img, cfg.Sizes.ImageBytes, cfg.SparseImages); err != nil {
		return err
	}
	dev, err := device.OpenFile(img, device.FileOptions{Create: true, Size: cfg.Sizes.ImageBytes})
	if err != nil {
		return err
	}
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: cfg.Model, Version: cfg.FSVersion, Placement: cfg.Placement}); err != nil {
		dev.Close()
		return fmt.Errorf("vlfs mkfs: %w", err)
	}
	return dev.Close()
}

func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

func (t *vlfsTarget) name() string      { return PeerVLFS }
func (t *vlfsTarget) dir() string       { return t.mnt }
func (t *vlfsTarget) dropCaches() error { return dropFile(t.img) }

func (t *vlfsTarget) counters() *serverSnapshot {
	st := t.fs.Stats()
	var fuseReqs int64
	for _, c := range t.srv.Counters() {
		fuseReqs += c.Count
	}
	return &serverSnapshot{fuse: fuseReqs, flushes: st.Vol.Flushes, fsyncs: st.Fsyncs,
		devWrites: st.Vol.Writes, simMs: st.Vol.Sim.Total(), headModel: st.Vol.HeadModel,
		wall: st.Wall, flushWall: st.Vol.FlushWall, reqs: t.srv.RequestHists()}
}

// stop unmounts, waits for the server, closes the file system and checks
// it (a benchmark that left the image inconsistent has no result).
func (t *vlfsTarget) stop() error {
	if t.stopProfile != nil {
		t.stopProfile()
	}
	if err := t.unmount(); err != nil {
		return err
	}
	return os.RemoveAll(t.base)
}

// unmount unmounts t.mnt, waits for the server and closes the file system.
func (t *vlfsTarget) unmount() error {
	var err error
	for i := 0; i < 50; i++ {
		if err = fusefs.Unmount(t.mnt, false); err == nil || errors.Is(err, fusefs.ErrNotMounted) {
			err = nil
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		fusefs.Unmount(t.mnt, true)
	}
	t.srv.Wait()
	if t.compactor != nil {
		if cerr := t.compactor.Stop(); err == nil {
			err = cerr
		}
		t.compactor = nil
	}
	if cerr := t.fs.Close(); err == nil {
		err = cerr
	}
	return err
}

// serverSnapshot is a server's cumulative counters at one moment.
type serverSnapshot struct {
	fuse, flushes, fsyncs, devWrites int64
	simMs                            float64
	headModel                        string // what eager placement writes by, as the volume says
	wall                             vlfs.WallStats
	flushWall                        wallhist.Snapshot
	reqs                             map[string]wallhist.Snapshot // FUSE requests' answer times, by opcode
}

// costs are the server's work per workload operation between two
// snapshots: FUSE requests, device flushes, device writes, simulated disk
// ms; device flushes per fsync; and the medians of the server's wall-clock
// histograms over the workload (bucket midpoints, within 1/16).
func (a *serverSnapshot) costs(b *serverSnapshot, ops int64) map[string]any {
	if a == nil || b == nil || ops <= 0 {
		return nil
	}
	per := func(x, y int64) float64 { return float64(y-x) / float64(ops) }
	m := map[string]any{
		"fuse_per_op":       per(a.fuse, b.fuse),
		"flushes_per_op":    per(a.flushes, b.flushes),
		"dev_writes_per_op": per(a.devWrites, b.devWrites),
		"sim_ms_per_op":     (b.simMs - a.simMs) / float64(ops),
		"head_model":        b.headModel,
	}
	if n := b.fsyncs - a.fsyncs; n > 0 {
		m["flushes_per_fsync"] = float64(b.flushes-a.flushes) / float64(n)
	}
	// Where fsyncs spent wall-clock time in the server: medians of the
	// fsync calls and of the commits' parts (the flush is in the volume's).
	for _, w := range []struct {
		key  string
		a, b wallhist.Snapshot
	}{
		{"fsync_wall_us_p50", a.wall.Fsync, b.wall.Fsync},
		{"plan_wall_us_p50", a.wall.CommitPlan, b.wall.CommitPlan},
		{"volume_wall_us_p50", a.wall.CommitVolume, b.wall.CommitVolume},
		{"flush_wall_us_p50", a.flushWall, b.flushWall},
	} {
		if d := w.b.Sub(w.a); d.Count() > 0 {
			m[w.key] = float64(d.Quantile(0.5)) / 1e3
		}
	}
	return m
}

// measured runs one measured phase and adds the server's costs per
// operation to its result, for targets that count them.
func measured(t peerTarget, phase func() (peerResult, error)) (peerResult, error) {
	before := t.counters()
	r, err := phase()
	if err != nil {
		return r, err
	}
	if c := before.costs(t.counters(), r.ops); c != nil {
		if r.extra == nil {
			r.extra = map[string]any{}
		}
		for k, v := range c {
			r.extra[k] = v
		}
	}
	return r, nil
}
