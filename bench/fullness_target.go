package bench

import (
	"fmt"
	"os"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
)

// probeFullness skips the targets this machine cannot make: vlfs without
// FUSE, ext4 without a working loop mount (root, mkfs.ext4).
func probeFullness(workDir string) peersEnv {
	env := peersEnv{skip: map[string]string{}}
	skip := env.skipper()
	if why := fuseUnavailable(); why != "" {
		skip(FullVLFSOn, why)
		skip(FullVLFSOff, why)
	}
	if why := kernelLoopWorks(workDir); why != "" {
		skip(FullExt4, "the kernel's ext4 over a loop device does not work here: "+why)
	}
	return env
}

// fullTarget makes one target, fills and measures it at every level, and
// stops it.
func fullTarget(cfg FullnessConfig, name string) ([]map[string]any, error) {
	cfg.Logf("fullness: starting %s (%d MiB image)", name, cfg.ImageBytes>>20)
	t, err := startFullTarget(cfg, name)
	if err != nil {
		return nil, err
	}
	rows, err := fullLevels(cfg, t, name)
	if serr := t.stop(); err == nil && serr != nil {
		err = fmt.Errorf("stopping: %w", serr)
	}
	return rows, err
}

// startFullTarget makes the named target through the peers' startTarget:
// vlfs (with its compactor started for FullVLFSOn) or ext4 on a loop
// device.
func startFullTarget(cfg FullnessConfig, name string) (peerTarget, error) {
	pc := PeersConfig{Model: cfg.Model, DiskName: cfg.DiskName, WorkDir: cfg.WorkDir,
		Sizes: PeersSizes{ImageBytes: cfg.ImageBytes}, Logf: cfg.Logf}
	if name == FullExt4 {
		return startTarget(pc, FullExt4)
	}
	t, err := startTarget(pc, PeerVLFS)
	if err != nil || name != FullVLFSOn {
		return t, err
	}
	// The compactor works on the real clock whenever no operation has
	// arrived for its idle delay: between the fill's files and the
	// phases, as a mounted vlfs's does (vlfs mount --compactor on).
	vt := t.(*vlfsTarget)
	if vt.compactor, err = compactor.StartBackground(vt.fs.CompactTarget(), compactor.Config{}, cfg.Logf); err != nil {
		t.stop()
		return nil, fmt.Errorf("starting the compactor: %w", err)
	}
	return t, nil
}

// volStats are the volume's counters of a vlfs target; false for others.
func volStats(t peerTarget) (vld.Stats, bool) {
	v, ok := t.(*vlfsTarget)
	if !ok {
		return vld.Stats{}, false
	}
	return v.fs.Stats().Vol, true
}

// ext4LoopTarget is the kernel's ext4 mounted over a loop device of an
// image file (mount -o loop), the native file system at a known size so
// that it can be filled like the vlfs image.
type ext4LoopTarget struct{ base, img, mnt string }

func startExt4Loop(cfg PeersConfig, base string) (peerTarget, error) {
	t := &ext4LoopTarget{base: base}
	var err error
	// No blocks reserved for root (-m 0): the fill counts what an
	// application may use (statfs's f_bavail), and ext4 then withholds
	// only what no one may use (its reserved clusters, up to 4096).
	if t.img, t.mnt, err = prepareExt4(cfg, base, "-m", "0"); err != nil {
		return nil, err
	}
	if err := kernelExt4().mountUpper(t.img, t.mnt); err != nil {
		return nil, err
	}
	return t, nil
}

// kernelExt4 mounts and unmounts the kernel's ext4 as the logical
// benchmark's upper file system does.
func kernelExt4() logicalEnv { return logicalEnv{upper: "kernel-ext4"} }

func (t *ext4LoopTarget) name() string              { return FullExt4 }
func (t *ext4LoopTarget) dir() string               { return t.mnt }
func (t *ext4LoopTarget) dropCaches() error         { return dropFile(t.img) }
func (t *ext4LoopTarget) counters() *serverSnapshot { return nil }

// stop unmounts (the loop device detaches itself) and removes the image.
func (t *ext4LoopTarget) stop() error {
	if err := whileBusy(func() error { return kernelExt4().unmountUpper(t.mnt) }); err != nil {
		return err
	}
	return os.RemoveAll(t.base)
}
