package bench

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// The idle sweep on the file system: the same bursts of random 4 KiB
// updates, each a vlfs Write then Fsync of one file, with the mount's
// compactor (vlfs.FS.CompactTarget) on or off. An update writes its data
// block, the indirect blocks above it, the inode block and the inode-map
// entry, so it costs more than a logical-disk update; and a block the
// compactor moves changes its inode (and indirect blocks), which the move's
// commit rewrites too.
//
// The empty-file-system reference (utilisation 0) updates a 1 %-sized range
// of blocks at the pointer depth that holds most of the 80 % file
// (idle_vlfs_depth.go): double indirect on any disk the sweep runs, so each
// of its updates rewrites as many indirect blocks as one at 80 %. A small
// file from block 0 would sit under the single indirect block and write one
// block less per update (TestIdleEmptyDepth).

// idleVLFSRows runs the VLFS points on one disk: the empty-file-system
// latency, then compactor off and on at cfg.Utilization.
func idleVLFSRows(cfg IdleConfig, m *disk.Model) ([]map[string]any, error) {
	empty := map[int]float64{}
	var rows []map[string]any
	var ref ptrDepth
	for _, b := range cfg.BurstKB {
		im, err := vlfsImage(cfg, m, 0)
		if err != nil {
			return nil, err
		}
		ref = im.g.depth(im.upd.base)
		r, depths, err := vlfsPoint(cfg, im, b, 0, false)
		if err != nil {
			return nil, err
		}
		empty[b] = r.meanMs()
		rows = append(rows, vlfsRow(r.row(m, 0, empty[b]), depths, ref))
	}
	im, err := vlfsImage(cfg, m, cfg.Utilization)
	if err != nil {
		return nil, err
	}
	for _, on := range []bool{false, true} {
		for _, b := range cfg.BurstKB {
			for _, idle := range cfg.IdleMs {
				r, depths, err := vlfsPoint(cfg, im, b, idle, on)
				if err != nil {
					return nil, err
				}
				rows = append(rows, vlfsRow(r.row(m, cfg.Utilization, empty[b]), depths, ref))
				cfg.progress.Step(fmt.Sprintf("%s vlfs %d KiB bursts, idle %g ms", m.Name, b, idle))
			}
		}
	}
	return rows, nil
}

// vlfsRow marks a row as the file system's: update_depth is the pointer
// depth most of its measured updates rewrote, reference_depth that of the
// empty-file-system reference its vs_empty divides by.
func vlfsRow(row map[string]any, depths depthCount, ref ptrDepth) map[string]any {
	row["system"] = "vlfs"
	row["update_depth"] = depths.most().String()
	row["reference_depth"] = ref.String()
	return row
}

// vlfsImg is a file-system image with file "f" and the range of its blocks
// the points update.
type vlfsImg struct {
	img []byte
	upd blockRange
	g   depthGeometry
}

// vlfsFileBlocks is the size in blocks of the file at utilisation u > 0
// (of a file system with st's counts), leaving room for the metadata:
// indirect blocks, inode blocks, log.
func vlfsFileBlocks(st vlfs.StatFS, u float64) int64 {
	return min(int64(float64(st.Blocks)*u), int64(st.Bfree)-int64(st.Blocks)/50)
}

// vlfsImage makes a file system whose file "f" fills u of the volume,
// fragmented like the logical disk's: written, then updated at random
// (fsync'd) as many times as it has blocks. For u = 0 the file has only a
// range of 1 % of the volume (or the largest burst), at the pointer depth
// that holds most of the file at cfg.Utilization, written and not
// fragmented: the empty-file-system reference.
//
// (cfg.volume sets the volume's head model and log window.)
func vlfsImage(cfg IdleConfig, m *disk.Model, u float64) (*vlfsImg, error) {
	dev := device.NewMem(cfg.DiskBytes)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: m, Head: cfg.Head}); err != nil {
		return nil, err
	}
	fs, err := mountVLFS(dev, vlfs.Options{FlushInterval: time.Hour}, cfg.volume)
	if err != nil {
		return nil, err
	}
	st, err := fs.StatFS()
	if err != nil {
		return nil, err
	}
	im := &vlfsImg{g: newDepthGeometry(int(st.Bsize), fs.Stats().FSVersion >= ondisk.FSVersionSums)}
	if u > 0 {
		im.upd = blockRange{n: vlfsFileBlocks(st, u)}
	} else {
		n := int64(st.Blocks) / 100
		for _, b := range cfg.BurstKB {
			n = max(n, int64(b/4))
		}
		n = min(n, int64(st.Bfree)-int64(st.Blocks)/50)
		im.upd = im.g.depthMatched(im.g.fileDepth(vlfsFileBlocks(st, cfg.Utilization)), n)
	}
	a, err := fs.Create(vlfs.RootIno, "f", 0o644, 0, 0)
	if err != nil {
		return nil, err
	}
	// Only the updated range is written: below it the file is a hole.
	chunk := make([]byte, 256<<10)
	lo, hi := im.upd.base*4096, (im.upd.base+im.upd.n)*4096
	for off := lo; off < hi; off += int64(len(chunk)) {
		if _, err := fs.Write(a.Ino, off, chunk[:min(int64(len(chunk)), hi-off)]); err != nil {
			return nil, fmt.Errorf("writing the file: %w", err)
		}
	}
	if err := fs.Sync(); err != nil {
		return nil, err
	}
	if u > 0 {
		rng := rand.New(rand.NewSource(cfg.Seed + 1))
		for range im.upd.n {
			if err := vlfsUpdate(fs, a.Ino, im.upd.base+rng.Int63n(im.upd.n)); err != nil {
				return nil, fmt.Errorf("fragmenting: %w", err)
			}
		}
	}
	if err := fs.Close(); err != nil {
		return nil, err
	}
	im.img = dev.Bytes()
	return im, nil
}

var vlfsBlock = make([]byte, 4096) // never written to

func vlfsUpdate(fs *vlfs.FS, ino vlfs.Ino, blk int64) error {
	if _, err := fs.Write(ino, blk*4096, vlfsBlock); err != nil {
		return err
	}
	return fs.Fsync(ino, true)
}

// vlfsPoint runs bursts separated by idleMs on a copy of im, updating
// blocks of its range at random; it also counts the measured updates by
// the pointer depth of their block.
func vlfsPoint(cfg IdleConfig, im *vlfsImg, burstKB int, idleMs float64, on bool) (*idleResult, depthCount, error) {
	var depths depthCount
	fs, err := mountVLFS(device.MemFrom(im.img), vlfs.Options{FlushInterval: time.Hour}, cfg.volume)
	if err != nil {
		return nil, depths, err
	}
	defer fs.Close()
	a, err := fs.Lookup(vlfs.RootIno, "f")
	if err != nil {
		return nil, depths, err
	}
	t := fs.CompactTarget()
	var c *compactor.Compactor
	if on {
		if c, err = compactor.New(t, cfg.Compactor); err != nil {
			return nil, depths, err
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
			blk := im.upd.base + rng.Int63n(im.upd.n)
			if err := vlfsUpdate(fs, a.Ino, blk); err != nil {
				return nil, depths, fmt.Errorf("burst %d: %w", i, err)
			}
			if measured {
				depths.add(im.g, blk)
			}
		}
		if measured {
			s1 := fs.Stats().Vol
			r.fg.Writes += s1.Writes - s0.Writes
			r.fg.SectorsWritten += s1.SectorsWritten - s0.SectorsWritten
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
			return nil, depths, err
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
	return r, depths, nil
}

// volume sets the head model and log window of a vlfs row's volume as the
// logical disk's rows have them.
func (cfg IdleConfig) volume(vo *vld.Options) { vo.Head, vo.LogWindow = cfg.Head, cfg.LogWindow }
