package bench

import (
	"fmt"
	"io"
	"slices"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// IdleConfig is Figure 11 of the virtual-log paper (section 5.5): bursts
// of random synchronous 4 KiB updates at 80 % utilisation separated by
// idle intervals, on a logical disk with eager placement, with and without
// the idle-time compactor.
type IdleConfig struct {
	Models      []*disk.Model // default st19101 and hp97560
	DiskBytes   int64         // simulated disk region; default 128 MiB
	Utilization float64       // file size / logical disk; default 0.8
	BurstKB     []int         // default 128, 256, 512, 1024, 2048
	IdleMs      []float64     // default 0, 5, 10, 20, 50, 100, 200, 500, 1000
	// Updates is how many updates a point measures, and how many it runs
	// before measuring (at least 4 bursts each); default 2048.
	Updates   int
	Compactor compactor.Config
	// LogWindow is the volumes' log window as a fraction of the disk's
	// tracks (vld.Options.LogWindow); 0 is the default, 1/16.
	LogWindow float64
	Seed      int64
	Progress  io.Writer // where to show progress (stderr); nil for none
	// VLFS adds the file system's rows (system = vlfs, idle_vlfs.go)
	// beside the logical disk's.
	VLFS bool
	// Placements: eager runs the logical disk's rows with the compactor
	// off and on, lfs the classic-LFS baseline (idle_lfs.go); default
	// both.
	Placements  []vld.Placement
	CleanPolicy logical.CleanPolicy // the LFS cleaner's
	// Head is the head model the volumes place eager writes by: nil is the
	// simulator's own head (the oracle), else a profile from vlfs profile.
	// A profile is measured on one disk, so it needs exactly one Model.
	Head *profile.Profile

	progress *Progress
}

// DefaultIdleMs are the idle intervals of the sweep (simulated ms).
func DefaultIdleMs() []float64 { return []float64{0, 5, 10, 20, 50, 100, 200, 500, 1000} }

// DefaultBurstKB are the burst sizes of Figures 10 and 11.
func DefaultBurstKB() []int { return []int{128, 256, 512, 1024, 2048} }

func (cfg *IdleConfig) defaults() error {
	if len(cfg.Models) == 0 {
		for _, n := range []string{"st19101", "hp97560"} {
			m, err := disk.Preset(n)
			if err != nil {
				return err
			}
			cfg.Models = append(cfg.Models, m)
		}
	}
	if cfg.DiskBytes == 0 {
		cfg.DiskBytes = 128 << 20
	}
	if cfg.Utilization == 0 {
		cfg.Utilization = 0.8
	}
	if len(cfg.BurstKB) == 0 {
		cfg.BurstKB = DefaultBurstKB()
	}
	if len(cfg.IdleMs) == 0 {
		cfg.IdleMs = DefaultIdleMs()
	}
	if cfg.Updates <= 0 {
		cfg.Updates = 2048
	}
	if len(cfg.Placements) == 0 {
		cfg.Placements = []vld.Placement{vld.PlaceEager, vld.PlaceLFS}
	}
	if cfg.Head != nil && len(cfg.Models) != 1 {
		return fmt.Errorf("idle: a head profile belongs to one disk, %d disks given: %w", len(cfg.Models), disk.ErrBadParameter)
	}
	for _, p := range cfg.Placements {
		if p != vld.PlaceEager && p != vld.PlaceLFS {
			return fmt.Errorf("idle: placement %v: the idle benchmark runs eager (the VLD and its compactor) or lfs (the cleaner): %w", p, disk.ErrBadParameter)
		}
	}
	if cfg.Utilization <= 0 || cfg.Utilization >= 1 {
		return fmt.Errorf("idle: utilization %v outside (0, 1): %w", cfg.Utilization, disk.ErrBadParameter)
	}
	for _, b := range cfg.BurstKB {
		if b < 4 || b%4 != 0 {
			return fmt.Errorf("idle: burst of %d KiB is not a positive multiple of 4 KiB: %w", b, disk.ErrBadParameter)
		}
	}
	for _, ms := range cfg.IdleMs {
		if !(ms >= 0) {
			return fmt.Errorf("idle: idle interval %v ms must be >= 0: %w", ms, disk.ErrBadParameter)
		}
	}
	return nil
}

// Idle runs the sweep on every disk. Rows: the empty-disk latency
// (utilization 0, one row per burst size), then for the compactor off and
// on, every burst size and idle interval at the configured utilisation.
// mean_ms is the mean simulated time from a write's arrival to its
// completion, including any wait for a compaction step in flight.
func Idle(cfg IdleConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	// ccfg only reports the defaults: compactor.New fills them in itself,
	// and a zero SettleBlocks there takes each target's own
	// (compactor.SettleDefaulter).
	ccfg, err := cfg.Compactor.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("idle: %w", err)
	}
	settle := any(cfg.Compactor.SettleBlocks)
	if cfg.Compactor.SettleBlocks == 0 {
		settle = "target default (vlfs 32, logical disk 1)"
	}
	points := len(cfg.Models) * len(cfg.BurstKB) * (1 + 2*len(cfg.IdleMs))
	if !slices.Contains(cfg.Placements, vld.PlaceEager) {
		points = len(cfg.Models) * len(cfg.BurstKB)
	}
	if slices.Contains(cfg.Placements, vld.PlaceLFS) {
		points += len(cfg.Models) * len(cfg.BurstKB) * len(cfg.IdleMs)
	}
	if cfg.VLFS {
		points += len(cfg.Models) * len(cfg.BurstKB) * 2 * len(cfg.IdleMs)
	}
	cfg.progress = NewProgress(cfg.Progress, "bench idle", points)
	defer cfg.progress.Done()
	rep := &Report{
		Bench: "idle", Disk: map[string]any{}, Clock: ClockSimulated,
		Params: map[string]any{
			"disk_bytes": cfg.DiskBytes, "updates": cfg.Updates, "seed": cfg.Seed, "block_bytes": 4096,
			"compactor_policy": ccfg.Policy.String(), "step_blocks": ccfg.StepBlocks, "commit_each_step": ccfg.CommitEachStep, "settle_blocks": settle,
			"target_empty": ccfg.TargetEmpty, "idle_delay_ms": ccfg.IdleDelayMs, "compactor_start": ccfg.Start.String(),
			"nvram_bytes": NVRAMBytes, "clean_policy": cfg.CleanPolicy.String(),
			"head": headName(cfg.Head), "log_window": logWindowParam(cfg.LogWindow),
		},
		Columns: []string{"disk", "system", "placement", "compactor", "head_model", "update_depth", "reference_depth", "burst_kb", "idle_ms", "utilization", "mean_ms", "vs_empty",
			"locate_ms", "requests_per_update", "blocks_per_update", "checkpoints_per_burst",
			"wait_mean_ms", "wait_max_ms", "step_max_ms", "moved_per_burst", "cleaned_per_burst", "empty_tracks"},
		Notes: idleNotes(),
	}
	for _, m := range cfg.Models {
		rep.Disk[m.Name] = m.Params()
		rows, err := idleDisk(cfg, m)
		if err != nil {
			return nil, fmt.Errorf("idle on %s: %w", m.Name, err)
		}
		rep.Rows = append(rep.Rows, rows...)
		if cfg.VLFS {
			if rows, err = idleVLFSRows(cfg, m); err != nil {
				return nil, fmt.Errorf("idle on vlfs on %s: %w", m.Name, err)
			}
			rep.Rows = append(rep.Rows, rows...)
		}
	}
	return rep, nil
}

func idleNotes() []string {
	return []string{
		"each burst: burst_kb/4 synchronous 4 KiB updates (LogicalDisk.WriteSync) at random offsets of one file, back to back; then idle_ms of think time",
		"utilization = file size / logical disk; the utilization-0 rows update a small file (1 % of the logical disk, or the largest burst) on an empty disk: the empty-disk latency",
		"system vlfs: the utilization-0 rows update a range of 1 % of the volume (or the largest burst) at the pointer depth that holds most of the file at the configured utilisation (double indirect), so each update rewrites as many indirect blocks as one at 80 %; the file is a hole below the range. update_depth: the pointer depth most measured updates rewrote; reference_depth: that of the utilization-0 row vs_empty divides by; blocks_per_update: blocks written per update (data, indirect, inode block, log entry, checkpoints)",
		"the disk starts fragmented: the file is written, then updated at random as many times as it has blocks, with no idle time",
		"mean_ms: simulated time from arrival to completion per update, over the measured bursts, including the wait for a compaction step in flight; vs_empty = mean_ms / the utilization-0 row of the same disk and burst",
		"wait_mean_ms / wait_max_ms: the interference, how long the first request after an idle interval waited for the compactor's step in flight (mean over idle intervals, and max); step_max_ms: the longest step",
		"moved_per_burst: blocks the compactor relocated per burst/idle cycle; empty_tracks: empty tracks at the end of the run",
		"placement eager = the VLD under an unmodified file system (the paper's UFS on VLD)",
		"head_model: what the volume says eager placement (and the compactor's moves) write by: simulated (the oracle) or profile (--head profile:FILE); the lfs log does not consult it",
		"placement lfs (Figure 10) = the classic-LFS baseline: updates go to a 6.1 MB NVRAM buffer (no simulated time) flushed to the log when full; idle time first flushes the buffer a segment at a time, then cleans segments (cost-benefit); a step starts only if the previous idle interval's length leaves room for it; compactor = on means this idle-time work; vs_empty is against the eager empty-disk row; cleaned_per_burst / moved_per_burst: segments cleaned and blocks they moved per burst/idle cycle",
	}
}

// idleDisk runs every point on one disk: the empty-disk rows, the eager
// rows (compactor off and on), the LFS rows.
func idleDisk(cfg IdleConfig, m *disk.Model) ([]map[string]any, error) {
	empty := map[int]float64{}
	var rows []map[string]any
	for _, b := range cfg.BurstKB {
		r, err := idleEmptyPoint(cfg, m, b)
		if err != nil {
			return nil, err
		}
		empty[b] = r.meanMs()
		rows = append(rows, r.row(m, 0, empty[b]))
		cfg.progress.Step(m.Name + " empty disk")
	}
	if slices.Contains(cfg.Placements, vld.PlaceEager) {
		img, err := fragmentedImage(cfg, m)
		if err != nil {
			return nil, err
		}
		for _, on := range []bool{false, true} {
			for _, b := range cfg.BurstKB {
				for _, idle := range cfg.IdleMs {
					r, err := idlePoint(cfg, m, img, b, idle, on)
					if err != nil {
						return nil, err
					}
					rows = append(rows, r.row(m, cfg.Utilization, empty[b]))
					cfg.progress.Step(fmt.Sprintf("%s %d KiB bursts, idle %g ms", m.Name, b, idle))
				}
			}
		}
	}
	if slices.Contains(cfg.Placements, vld.PlaceLFS) {
		lrows, err := idleLFSRows(cfg, m, empty)
		if err != nil {
			return nil, err
		}
		rows = append(rows, lrows...)
	}
	return rows, nil
}

// logWindowParam is the log window's fraction of the disk's tracks as the
// report states it (at least 64 tracks either way).
func logWindowParam(f float64) float64 {
	if f == 0 {
		return vld.DefaultLogWindow
	}
	return f
}
