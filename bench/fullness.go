package bench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// Fullness (issue 32, item 2): how vlfs slows as its image fills. Each
// target is made once and filled step by step (0 -> 50 -> 80 -> ...) with
// fsync'd files of mixed sizes; at each level four timed phases run on the
// wall clock (fullness_phase.go), and the simulated clock's mean update
// latency at the same utilisation is set against formula (2)
// (fullness_sim.go). Every row compares with the same target's empty image,
// measured in the same run.

// Targets of the fullness bench, in run order.
const (
	FullVLFSOn  = "vlfs-compactor-on"  // vlfs in this process, its idle-time compactor running
	FullVLFSOff = "vlfs-compactor-off" // the same without the compactor
	FullExt4    = "ext4"               // the kernel's ext4 over a loop device of an image file
)

// FullnessTargets lists every target, in run order.
func FullnessTargets() []string { return []string{FullVLFSOn, FullVLFSOff, FullExt4} }

// DefaultFullnessLevels are the fullness levels, as fractions.
func DefaultFullnessLevels() []float64 { return []float64{0, 0.5, 0.8, 0.9, 0.95, 0.99} }

// Sizes of the measurement phases. The 200 KB files are the issue's
// (decimal kilobytes, as its original measurement wrote them).
const (
	fullNames      = 64      // names the write+fsync phases overwrite in turn
	fullSmallBytes = 4 << 10 // the small write+fsync file
	fullLargeBytes = 200_000 // the large write+fsync file
	fullCreates    = 10_000  // at most this many creates (and unlinks) a level
	fullMaxFile    = 1 << 20 // the fill's largest file; its smallest is 1 byte
)

// FullnessRoom is the space a level's measurement needs on top of the
// fill: the 64 200 KB and 64 4 KiB files, and 6 MiB for the create
// phase's inodes and directory blocks and the metadata the overwrites
// rewrite. The fill stops this far short of the capacity, so the 99 %
// level of a 1 GiB image is filled to about 98.2 %.
const FullnessRoom = fullNames*(fullLargeBytes+fullSmallBytes) + 6<<20

// FullnessConfig configures RunFullness.
type FullnessConfig struct {
	Model      *disk.Model // vlfs's simulated disk, and the simulated part's
	DiskName   string      // as given, for the report
	WorkDir    string      // images live here
	ImageBytes int64       // each target's image
	Levels     []float64   // fractions of the capacity statfs reports, in [0, 1)
	Duration   time.Duration
	Seed       int64    // the fill's file sizes, and the simulated updates
	Targets    []string // subset of FullnessTargets
	SimUpdates int      // measured updates per simulated point; 0: UpdatesConfig's default
	Quick      bool     // reported only
	Logf       func(format string, args ...any)
}

// fullnessParams are the rows' parameters: what was measured, not on a
// clock.
func fullnessParams() []string {
	return []string{"target", "level_pct", "fill_pct", "used_pct", "fill_files", "fill_bytes"}
}

// fullnessColumns are the row keys: the parameters, then the measured
// columns, whose clocks fullnessClocks names.
func fullnessColumns() []string {
	return append(fullnessParams(), "fill_ms",
		"write200k_ops_s", "write200k_x_empty", "write4k_ops_s", "write4k_x_empty",
		"create_ops_s", "create_x_empty", "unlink_ops_s", "unlink_x_empty",
		"cpu_ms_per_write200k", "cpu_ms_per_write4k", "cpu_ms_per_create", "cpu_ms_per_unlink",
		"server_cpu_ms_per_write200k", "server_cpu_ms_per_write4k", "server_cpu_ms_per_create", "server_cpu_ms_per_unlink",
		"server_cpu_ms_per_block", "server_cpu_per_block_x_empty",
		"alloc_cpu_ms_per_block", "alloc_cpu_per_block_x_empty",
		"sim_utilization", "sim_update_ms", "sim_model_ms", "sim_diff_pct")
}

// fullnessClocks names the clock of every measured column, for the report
// (params.column_clocks) and its reader: one report holds both.
func fullnessClocks() map[string]string {
	m := map[string]string{}
	for _, c := range fullnessColumns()[len(fullnessParams()):] {
		m[c] = ClockWall
		if strings.HasPrefix(c, "sim_") {
			m[c] = ClockSimulated
		}
	}
	return m
}

// RunFullness fills each selected target level by level, measures it at
// every level, and adds the simulated update latency against formula (2).
func RunFullness(cfg FullnessConfig) (*Report, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	levels, err := checkLevels(cfg.Levels)
	if err != nil {
		return nil, err
	}
	cfg.Levels = levels
	rep := fullnessReport(cfg)
	env := probeFullness(cfg.WorkDir)
	rep.Notes = append(rep.Notes, env.notes...)
	for _, name := range FullnessTargets() {
		if !slices.Contains(cfg.Targets, name) || env.skip[name] != "" {
			continue
		}
		rows, err := fullTarget(cfg, name)
		if err != nil {
			return nil, fmt.Errorf("fullness: %s: %w", name, err)
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	sim, err := fullnessSim(cfg)
	if err != nil {
		return nil, fmt.Errorf("fullness: simulated part: %w", err)
	}
	rep.Rows = mergeSim(rep.Rows, sim)
	emptyRatios(rep.Rows)
	rep.Notes = append(rep.Notes, fullnessNotes(cfg, rep.Rows)...)
	return rep, nil
}

// levelPct is a level as the percentage rows name it, rounded so that
// 0.07 is 7, not 7.000000000000001, and rows of one level compare equal.
func levelPct(level float64) float64 { return math.Round(level*1e6) / 1e4 }

// checkLevels sorts the levels and rejects one outside [0, 1).
func checkLevels(in []float64) ([]float64, error) {
	if len(in) == 0 {
		in = DefaultFullnessLevels()
	}
	out := slices.Clone(in)
	slices.Sort(out)
	out = slices.Compact(out)
	for _, l := range out {
		if !(l >= 0 && l < 1) {
			return nil, fmt.Errorf("fullness: level %v%%: want 0 to under 100: %w", l*100, disk.ErrBadParameter)
		}
	}
	return out, nil
}

func fullnessReport(cfg FullnessConfig) *Report {
	var levels []string
	for _, l := range cfg.Levels {
		levels = append(levels, fmt.Sprintf("%g", l*100))
	}
	rep := &Report{
		Bench: "fullness", Clock: ClockWall, Disk: cfg.Model.Params(),
		Params: map[string]any{
			"quick": cfg.Quick, "image_bytes": cfg.ImageBytes, "levels_pct": strings.Join(levels, ","),
			"duration_ms": float64(cfg.Duration.Milliseconds()), "seed": cfg.Seed,
			"targets": strings.Join(cfg.Targets, ","), "room_bytes": FullnessRoom,
			"fill_sizes": fmt.Sprintf("1 B to %d B, log-uniform", fullMaxFile),
			"names":      fullNames, "large_bytes": fullLargeBytes, "small_bytes": fullSmallBytes,
			"max_creates": fullCreates, "column_clocks": fullnessClocks(),
			"date": time.Now().UTC().Format(time.RFC3339),
		},
		Columns: fullnessColumns(),
	}
	rep.Disk["preset"] = cfg.DiskName
	return rep
}
