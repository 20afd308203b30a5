package bench

import (
	"fmt"
	"os"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// LogicalConfig is the logical-disk benchmark: random synchronous 4 KiB
// updates inside an unmodified file system (the kernel's ext4 over a loop
// device, or fuse2fs) on a disk exported by package diskfs, with eager
// placement (the VLD) against update-in-place on the same simulated disk:
// the UFS-on-VLD experiment of the virtual-log paper (section 5.3, Table 2).
type LogicalConfig struct {
	Model        *disk.Model
	DiskBytes    int64     // simulated disk region (VLD image size); default 256 MiB
	Utilizations []float64 // file size / exported disk size; default 0.5, 0.8
	Writes       int       // measured synchronous writes per point; default 1000
	Warmup       int       // writes before measuring; default Writes
	Seed         int64
	Upper        string // "kernel" (ext4 over loop, needs root), "fuse2fs" or "" (kernel if it works)
	Driver       string // "fio", "go" or "" (fio if installed)
	Sync         string // "fsync" (fio's fsync=1, the default) or "fdatasync"
	// Clock of the VLD during the measured writes (setting up always
	// runs on the virtual clock). ClockReal sleeps every request's service
	// time, so the upper file system sees the disk's speed, as in the
	// paper; ClockVirtual (the default) takes no wall time.
	Clock    vld.Clock
	NoLayers bool   // skip the wall-clock layer baselines
	WorkDir  string // mount points live here; default os.TempDir()
	// ShmDir holds the tmpfs file of the baselines; default /dev/shm.
	ShmDir string
	Logf   func(format string, args ...any)
	// Head is the head model the VLD places eager writes by: nil is the
	// simulator's own head (the oracle), else a profile from vlfs profile.
	Head *profile.Profile
}

// PaperTable2Speedup is the virtual-log paper's headline for UFS on a VLD
// against UFS on a regular disk with the ST19101 and the UltraSPARC-170,
// at 80 % utilisation: "almost an order of magnitude" (Table 2).
const PaperTable2Speedup = 10.0

// DefaultLogicalUtilizations are the two points of the issue.
func DefaultLogicalUtilizations() []float64 { return []float64{0.5, 0.8} }

func (cfg *LogicalConfig) defaults() error {
	if cfg.Model == nil {
		return fmt.Errorf("logical: no disk model: %w", disk.ErrInvalidModel)
	}
	if cfg.DiskBytes == 0 {
		cfg.DiskBytes = 256 << 20
	}
	if len(cfg.Utilizations) == 0 {
		cfg.Utilizations = DefaultLogicalUtilizations()
	}
	for _, u := range cfg.Utilizations {
		if u <= 0 || u > 0.9 {
			return fmt.Errorf("logical: utilization %v: want (0, 0.9] (ext4 needs room for its own metadata): %w", u, vld.ErrInvalid)
		}
	}
	if cfg.Writes <= 0 {
		cfg.Writes = 1000
	}
	if cfg.Warmup <= 0 {
		cfg.Warmup = cfg.Writes
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir = os.TempDir()
	}
	if cfg.ShmDir == "" {
		cfg.ShmDir = "/dev/shm"
	}
	if cfg.Sync == "" {
		cfg.Sync = "fsync"
	}
	if cfg.Sync != "fsync" && cfg.Sync != "fdatasync" {
		return fmt.Errorf("logical: sync %q: want fsync or fdatasync: %w", cfg.Sync, vld.ErrInvalid)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return nil
}

// logicalColumns are the row keys: every time names its clock (sim_ or
// wall_) and its unit.
var logicalColumns = []string{
	"stack", "placement", "head_model", "utilization",
	"sim_ms_per_write", "sim_overhead_ms", "sim_transfer_ms", "sim_locate_ms", "sim_other_ms",
	"device_writes_per_write", "device_reads_per_write", "flushes_per_write", "speedup", "paper_speedup",
	"vld_mapped_fraction", "wall_ms_per_write", "wall_median_ms", "wall_added_ms",
}

// Logical runs the benchmark. It needs FUSE (/dev/fuse, fusermount3),
// mkfs.ext4, and either root (kernel ext4 over a loop device) or fuse2fs.
func Logical(cfg LogicalConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	env, err := probeLogicalEnv(&cfg)
	if err != nil {
		return nil, err
	}
	rep := newLogicalReport(cfg, env)
	var base *layerResult
	if !cfg.NoLayers {
		if base, err = measureLayers(cfg, env, rep); err != nil {
			return nil, err
		}
	}
	for _, u := range cfg.Utilizations {
		var inplace float64
		for _, p := range []vld.Placement{vld.PlaceInPlace, vld.PlaceEager} {
			row, err := logicalPoint(cfg, env, p, u)
			if err != nil {
				return nil, fmt.Errorf("logical: %s at %.0f %%: %w", p, u*100, err)
			}
			finishRow(row, p, u, &inplace, base)
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

func clockName(c vld.Clock) string {
	if c == vld.ClockReal {
		return "real"
	}
	return "virtual"
}

// finishRow adds the speed-up over in place at the same utilisation, the
// paper's figure beside it, and the wall time the VLD adds over FUSE alone.
func finishRow(row map[string]any, p vld.Placement, u float64, inplace *float64, base *layerResult) {
	ms := row["sim_ms_per_write"].(float64)
	if p == vld.PlaceInPlace {
		*inplace = ms
	} else if ms > 0 {
		row["speedup"] = *inplace / ms
		if u == 0.8 {
			row["paper_speedup"] = PaperTable2Speedup
		}
	}
	if base != nil {
		row["wall_added_ms"] = row["wall_median_ms"].(float64) - base.fuseMem.medianMs
	}
}

func newLogicalReport(cfg LogicalConfig, env logicalEnv) *Report {
	d := cfg.Model.Params()
	d["region_bytes"] = cfg.DiskBytes
	return &Report{
		Bench: "logical", Disk: d, Clock: ClockSimulated,
		Params: map[string]any{
			"writes": cfg.Writes, "warmup": cfg.Warmup, "seed": cfg.Seed, "block_bytes": 4096,
			"upper": env.upper, "driver": env.driver, "sync": cfg.Sync, "vld_clock": clockName(cfg.Clock),
			"head": headName(cfg.Head),
		},
		Columns: logicalColumns,
		Notes: []string{
			"each write: 4 KiB at a random 4 KiB-aligned offset of one file, then " + cfg.Sync + " (fio fsync=1 or the Go driver), inside " + env.upper + " on MOUNTPOINT/disk served by diskfs",
			"sim_* figures are simulated time from the server's stats (deltas over the measured writes) divided by the writes; wall_* figures are wall-clock time per write (write + sync) seen by the writer: the mean, and the median, which the stalls of a busy machine do not move",
			"head_model: what the VLD says it placed writes by (vld.Volume.HeadModel): simulated (the oracle) or profile (--head profile:FILE); in place does not consult it",
			"utilization = file size / exported disk size; vld_mapped_fraction = logical blocks holding data / all (ext4 metadata and journal included)",
			"speedup = inplace sim_ms_per_write / eager sim_ms_per_write at the same utilisation; paper_speedup: Table 2 of the virtual-log paper, UFS on the VLD vs on a regular disk, ST19101 + UltraSPARC-170 at 80 %: almost an order of magnitude",
			"vld_clock is the VLD's clock during the measured writes (setup always runs on the virtual clock): virtual takes no wall time, so the upper file system sees an infinitely fast disk and its coarse mtime seldom changes between writes (most fsyncs then commit no journal transaction); real sleeps each request's service time, as the paper's in-kernel simulator did",
			"layer rows (wall clock only): the same writes on a tmpfs file (no layer), in the upper file system over a tmpfs file, over FUSE serving memory; wall_added_ms is what each layer adds to the median of the one before (the VLD rows: over FUSE serving memory). Every backing store is in memory, so no host disk time is included",
		},
	}
}
