package bench

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vlfs"
)

// The vlfs rows of bench updates and breakdown (issue 33): the logical
// disk's workload through the file system. The file holds as many blocks
// as the logical disk's file at the same utilisation (logical.Blocks
// of the same volume), so both carry the same data and the file system's
// metadata comes on top; each update is a 4 KiB Write at a random block
// of it and an Fsync, with the eager rows' seed, warm-up and (with
// Compacted) compactor run. What an update costs beyond the logical
// disk's (its indirect blocks, inode block, log entry) shows in
// blocks_per_update and requests_per_update.

// PlaceVLFS is the placement column of the vlfs rows: not a vld
// placement but the file system on the eager VLD.
const PlaceVLFS = "vlfs"

// vlfsRowNote says how the vlfs rows are measured.
const vlfsRowNote = "vlfs: the same updates through the file system on the eager VLD: a file of the logical disk's file size (the volume also holds its metadata), each update a 4 KiB write and an fdatasync of it; the same seed and warm-up (as many updates) as eager; fs_version: the file-system version made"

// vlfsEmptyImage is a freshly made file system of cfg's disk and size:
// every vlfs row starts from a copy of it.
func vlfsEmptyImage(cfg UpdatesConfig) ([]byte, error) {
	dev := device.NewMem(cfg.DiskBytes)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: cfg.Model, Head: cfg.Head, Version: cfg.FSVersion}); err != nil {
		return nil, fmt.Errorf("updates: vlfs rows: making the file system: %w", err)
	}
	return dev.Bytes(), nil
}

// updatesVLFSRows appends the vlfs row of every utilisation to rep.
func updatesVLFSRows(cfg UpdatesConfig, img []byte, rep *Report) error {
	for _, u := range cfg.Utilizations {
		row, err := averageSeeds(cfg.Seed, cfg.Seeds, func(seed int64) (map[string]any, error) {
			c := cfg
			c.Seed = seed
			return updatesVLFSPoint(c, img, u)
		})
		if err != nil {
			return fmt.Errorf("updates: vlfs at %.0f%%: %w", u*100, err)
		}
		rep.Rows = append(rep.Rows, row)
	}
	return nil
}

// updatesVLFSPoint mounts a copy of img, runs the point and unmounts.
func updatesVLFSPoint(cfg UpdatesConfig, img []byte, u float64) (map[string]any, error) {
	fs, err := mountVLFS(device.MemFrom(img), vlfs.Options{FlushInterval: time.Hour}, func(vo *vld.Options) { vo.Head = cfg.Head })
	if err != nil {
		return nil, err
	}
	row, err := vlfsUpdates(cfg, fs, u)
	if cerr := fs.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return row, err
}

// vlfsUpdates fills the file to utilisation u, warms up and measures.
func vlfsUpdates(cfg UpdatesConfig, fs *vlfs.FS, u float64) (map[string]any, error) {
	bs := len(vlfsBlock) // mkfs's default block size, which vlfsUpdate writes
	file := max(1, int64(float64(logical.Blocks(fs.Stats().Vol.TotalBlocks, bs))*u))
	a, err := fs.Create(vlfs.RootIno, "f", 0o644, 0, 0)
	if err != nil {
		return nil, err
	}
	if err := vlfsFill(fs, a.Ino, file*int64(bs)); err != nil {
		return nil, fmt.Errorf("filling: %w", err)
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	update := func() error { return vlfsUpdate(fs, a.Ino, rng.Int63n(file)) }
	for range cfg.Updates {
		if err := update(); err != nil {
			return nil, fmt.Errorf("warm-up: %w", err)
		}
	}
	if cfg.Compacted {
		if err := compactNow(fs.CompactTarget()); err != nil {
			return nil, fmt.Errorf("compacting: %w", err)
		}
	}
	s0 := fs.Stats().Vol
	for range cfg.Updates {
		if err := update(); err != nil {
			return nil, err
		}
	}
	s := fs.Stats()
	row := perUpdate(s0, s.Vol, cfg.Updates)
	row["placement"], row["utilization"], row["fs_version"] = PlaceVLFS, u, int(s.FSVersion)
	if cfg.Compacted {
		row["compacted"] = true
	}
	return row, nil
}

// vlfsFill writes the first size bytes of ino, 64 blocks a write as the
// logical disk's fill does, and syncs.
func vlfsFill(fs *vlfs.FS, ino vlfs.Ino, size int64) error {
	chunk := make([]byte, 64*len(vlfsBlock))
	for off := int64(0); off < size; off += int64(len(chunk)) {
		if _, err := fs.Write(ino, off, chunk[:min(int64(len(chunk)), size-off)]); err != nil {
			return err
		}
	}
	return fs.Sync()
}
