package bench

import (
	"os"
	"path/filepath"

	"github.com/vlfs/vlfs/diskfs"
)

// layerResult holds the wall-clock baselines, ms per write.
type layerResult struct {
	none, upper, fuseMem latency
}

// measureLayers times the same writes with fewer layers, all in memory:
// on a tmpfs file (no layer), in the upper file system over a tmpfs file
// (ext4 + loop, or fuse2fs), and over FUSE serving memory (diskfs.Mem).
// The VLD rows then add the VLD. It appends one row per layer.
func measureLayers(cfg LogicalConfig, env logicalEnv, rep *Report) (*layerResult, error) {
	const u = 0.5
	var r layerResult
	dir, err := os.MkdirTemp(cfg.ShmDir, "vlfs-bench-layers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	plain := filepath.Join(dir, "plain.dat")
	if r.none, err = fillAndWrite(cfg, env, plain, cfg.DiskBytes, u, noHooks()); err != nil {
		return nil, err
	}
	os.Remove(plain)
	img := filepath.Join(dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		return nil, err
	}
	if err := os.Truncate(img, cfg.DiskBytes); err != nil {
		return nil, err
	}
	if r.upper, err = workload(cfg, env, img, cfg.DiskBytes, u, noHooks()); err != nil {
		return nil, err
	}
	os.Remove(img)
	sd, err := serveDisk(cfg, diskfs.NewMem(cfg.DiskBytes))
	if err != nil {
		return nil, err
	}
	r.fuseMem, err = workload(cfg, env, sd.srv.DiskPath(), cfg.DiskBytes, u, noHooks())
	if serr := sd.stop(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	rows := []struct {
		stack      string
		ms, before *latency
	}{
		{"tmpfs file (no layer)", &r.none, nil},
		{env.stack + " on a tmpfs file", &r.upper, &r.none},
		{env.stack + "/FUSE (memory disk)", &r.fuseMem, &r.upper},
	}
	for _, l := range rows {
		row := map[string]any{"stack": l.stack, "utilization": u, "wall_ms_per_write": l.ms.meanMs, "wall_median_ms": l.ms.medianMs}
		if l.before != nil {
			row["wall_added_ms"] = l.ms.medianMs - l.before.medianMs
		}
		rep.Rows = append(rep.Rows, row)
	}
	cfg.Logf("layers: median %.3f / %.3f / %.3f wall ms per write", r.none.medianMs, r.upper.medianMs, r.fuseMem.medianMs)
	return &r, nil
}
