package bench

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// The idle sweep on the file system: the same bursts of random 4 KiB
// updates, each a vlfs Write then Fsync of one file, with the mount's
// compactor (vlfs.FS.CompactTarget) on or off. An update writes its data
// block, the indirect block above it, the inode block and the inode-map
// entry, so it costs more than a logical-disk update; and a block the
// compactor moves changes its inode (and indirect block), which the move's
// commit rewrites too.

// idleVLFSRows runs the VLFS points on one disk: the empty-file-system
// latency, then compactor off and on at cfg.Utilization.
func idleVLFSRows(cfg IdleConfig, m *disk.Model) ([]map[string]any, error) {
	empty := map[int]float64{}
	var rows []map[string]any
	for _, b := range cfg.BurstKB {
		img, file, err := vlfsImage(cfg, m, 0)
		if err != nil {
			return nil, err
		}
		r, err := vlfsPoint(cfg, img, file, b, 0, false)
		if err != nil {
			return nil, err
		}
		empty[b] = r.meanMs()
		rows = append(rows, vlfsRow(r.row(m, 0, empty[b])))
	}
	img, file, err := vlfsImage(cfg, m, cfg.Utilization)
	if err != nil {
		return nil, err
	}
	for _, on := range []bool{false, true} {
		for _, b := range cfg.BurstKB {
			for _, idle := range cfg.IdleMs {
				r, err := vlfsPoint(cfg, img, file, b, idle, on)
				if err != nil {
					return nil, err
				}
				rows = append(rows, vlfsRow(r.row(m, cfg.Utilization, empty[b])))
				cfg.progress.Step(fmt.Sprintf("%s vlfs %d KiB bursts, idle %g ms", m.Name, b, idle))
			}
		}
	}
	return rows, nil
}

func vlfsRow(row map[string]any) map[string]any {
	row["system"] = "vlfs"
	return row
}

// vlfsImage makes a file system whose file "f" fills u of the volume (or
// 1 % of it for u = 0), fragmented like the logical disk's: written, then
// updated at random (fsync'd) as many times as it has blocks.
func vlfsImage(cfg IdleConfig, m *disk.Model, u float64) ([]byte, int64, error) {
	dev := device.NewMem(cfg.DiskBytes)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Head: cfg.Head}); err != nil {
		return nil, 0, err
	}
	fs, err := vlfs.Mount(dev, vlfs.Options{FlushInterval: time.Hour, Head: cfg.Head})
	if err != nil {
		return nil, 0, err
	}
	st, err := fs.StatFS()
	if err != nil {
		return nil, 0, err
	}
	n := int64(float64(st.Blocks) * u)
	if u == 0 {
		n = int64(st.Blocks) / 100
		for _, b := range cfg.BurstKB {
			n = max(n, int64(b/4))
		}
	}
	// Leave room for the metadata: indirect blocks, inode blocks, log.
	n = min(n, int64(st.Bfree)-int64(st.Blocks)/50)
	a, err := fs.Create(vlfs.RootIno, "f", 0o644, 0, 0)
	if err != nil {
		return nil, 0, err
	}
	chunk := make([]byte, 256<<10)
	for off := int64(0); off < n*4096; off += int64(len(chunk)) {
		if _, err := fs.Write(a.Ino, off, chunk[:min(int64(len(chunk)), n*4096-off)]); err != nil {
			return nil, 0, fmt.Errorf("writing the file: %w", err)
		}
	}
	if err := fs.Sync(); err != nil {
		return nil, 0, err
	}
	if u > 0 {
		rng := rand.New(rand.NewSource(cfg.Seed + 1))
		for i := int64(0); i < n; i++ {
			if err := vlfsUpdate(fs, a.Ino, rng.Int63n(n)); err != nil {
				return nil, 0, fmt.Errorf("fragmenting: %w", err)
			}
		}
	}
	if err := fs.Close(); err != nil {
		return nil, 0, err
	}
	return dev.Bytes(), n, nil
}

var vlfsBlock = make([]byte, 4096) // never written to

func vlfsUpdate(fs *vlfs.FS, ino vlfs.Ino, blk int64) error {
	if _, err := fs.Write(ino, blk*4096, vlfsBlock); err != nil {
		return err
	}
	return fs.Fsync(ino, true)
}

// vlfsPoint runs bursts separated by idleMs on a copy of img.
func vlfsPoint(cfg IdleConfig, img []byte, file int64, burstKB int, idleMs float64, on bool) (*idleResult, error) {
	fs, err := vlfs.Mount(device.MemFrom(img), vlfs.Options{FlushInterval: time.Hour, Head: cfg.Head})
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	a, err := fs.Lookup(vlfs.RootIno, "f")
	if err != nil {
		return nil, err
	}
	t := fs.CompactTarget()
	var c *compactor.Compactor
	if on {
		if c, err = compactor.New(t, cfg.Compactor); err != nil {
			return nil, err
		}
	}
	per := burstKB / 4
	bursts := max((cfg.Updates+per-1)/per, 4)
	rng := rand.New(rand.NewSource(cfg.Seed))
	r := &idleResult{on: on, burstKB: burstKB, idleMs: idleMs, headModel: fs.Stats().Vol.HeadModel}
	arrive := t.NowMs()
	var moved0 int64
	for i := 0; i < 2*bursts; i++ {
		measured := i >= bursts
		if i == bursts && c != nil {
			moved0 = c.Stats().BlocksMoved
		}
		s0 := fs.Stats().Vol
		for range per {
			if err := vlfsUpdate(fs, a.Ino, rng.Int63n(file)); err != nil {
				return nil, fmt.Errorf("burst %d: %w", i, err)
			}
		}
		if measured {
			s1 := fs.Stats().Vol
			r.fg.Writes += s1.Writes - s0.Writes
			r.fg.Checkpoints += s1.Checkpoints - s0.Checkpoints
			r.fg.Sim.LocateMs += s1.Sim.LocateMs - s0.Sim.LocateMs
			r.latencyMs += t.NowMs() - arrive
			r.updates += per
			r.cycles++
		}
		wait := 0.0
		if c == nil {
			t.Idle(idleMs)
		} else if wait, err = c.Think(idleMs); err != nil {
			return nil, err
		}
		if measured && c != nil {
			r.waits.add(wait)
			r.waitMax = max(r.waitMax, wait)
		}
		arrive = t.NowMs() - wait
	}
	if c != nil {
		s := c.Stats()
		r.moved, r.stepMax = s.BlocksMoved-moved0, s.MaxStepMs
	}
	_, r.emptyTracksEnd = t.Space(nil)
	return r, nil
}
