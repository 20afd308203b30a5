package bench

import (
	"fmt"
	"math"
	"strings"
)

// emptyRatios divides each row's rates and per-block CPU by its target's
// at level 0, measured earlier in the same run: *_x_empty.
func emptyRatios(rows []map[string]any) {
	empty := map[string]map[string]any{}
	for _, r := range rows {
		if r["level_pct"] == 0.0 {
			empty[r["target"].(string)] = r
		}
	}
	pairs := [][2]string{
		{"write200k_ops_s", "write200k_x_empty"}, {"write4k_ops_s", "write4k_x_empty"},
		{"create_ops_s", "create_x_empty"}, {"unlink_ops_s", "unlink_x_empty"},
		{"server_cpu_ms_per_block", "server_cpu_per_block_x_empty"},
		{"alloc_cpu_ms_per_block", "alloc_cpu_per_block_x_empty"},
	}
	for _, r := range rows {
		e := empty[r["target"].(string)]
		if e == nil {
			continue
		}
		for _, p := range pairs {
			if v, ok := ratio(r[p[0]], e[p[0]]); ok {
				r[p[1]] = v
			}
		}
	}
}

// fullnessNotes explains the columns and states issue 32's targets.
func fullnessNotes(cfg FullnessConfig, rows []map[string]any) []string {
	notes := []string{
		"clocks: every column is on the wall clock except sim_*, which are on the simulated clock (params.column_clocks names each); vlfs runs on the virtual disk clock, so its wall figures are the software's cost, not the disk's",
		fmt.Sprintf("fill: each target is made once and filled level by level with files of 1 B to 1 MiB (log-uniform sizes, seed %d), each written, fsync'd and closed on its own, 1,000 to a directory, until statfs says the level's share of the blocks is in use (used_pct, after the fill)", cfg.Seed),
		fmt.Sprintf("room: the fill stops %d bytes short of the capacity (fill_pct is where it stopped), so that the measurement's 64 200 KB files, 64 4 KiB files and creates fit: at 99 %% of a small image the fill is lower than the level", FullnessRoom),
		fmt.Sprintf("phases at each level, %v each: write200k_ops_s and write4k_ops_s write, fsync and close 200,000- and 4,096-byte files over 64 names in turn (O_TRUNC; a first, untimed pass creates the 64 files, so every timed write is an overwrite); create_ops_s makes empty files (open O_CREAT|O_EXCL, close; at most %d), unlink_ops_s removes them; the level's files are removed before the next fill", cfg.Duration, fullCreates),
		"*_x_empty: the row's figure over the same target's at level 0 in this run",
		"cpu_ms_per_*: this process's user+system CPU per operation (the calling thread's system calls and, for vlfs, its server in the same process); server_cpu_ms_per_*: vlfs's server alone (the process less the calling thread, which runs locked to its own thread); ext4's kernel threads (journal, loop device) are not counted",
		"server_cpu_ms_per_block: vlfs's server CPU over the two write phases per block the volume wrote; alloc_cpu_ms_per_block: the allocator's own CPU per allocated block, from the volume's counters (vld.Stats.AllocNs / AllocBlocks: the wall time of its searches, which do no I/O, one in 8 timed; with more runnable goroutines than cores, as with the compactor on, it includes waits for a core)",
		"sim_*: bench updates' eager points on the simulated disk (a logical disk, random synchronous 4 KiB updates of a file filling sim_utilization of it; 0 % updates a one-block file): sim_update_ms is their mean, sim_model_ms formula (2)'s prediction (controller overhead + transfer of the block and its log entry + formula (2)'s locate time), sim_diff_pct the difference; compactor on = measured right after an offline compactor run, off = the fragmented steady state",
		"vlfs-compactor-on runs the mount's background compactor on the real clock (it works whenever no request has arrived for its idle delay); ext4 is the kernel's, mkfs.ext4 -b 4096 -m 0, over a loop device of an image of the same size",
		"used_pct is 1 - f_bavail/f_blocks: what an application can no longer write; ext4's reserved clusters (up to 16 MiB that no one may write) count as used, so an empty 1 GiB ext4 image reads 1.6 %",
	}
	for _, target := range []string{FullVLFSOn, FullVLFSOff} {
		notes = append(notes,
			ratioGoal(rows, target, 80, "write200k_x_empty", "200 KB write+fsync files/s at 80 % full at least 0.7x the empty image's", 0.7, false),
			ratioGoal(rows, target, 95, "write200k_x_empty", "200 KB write+fsync files/s at 95 % full at least 0.5x the empty image's", 0.5, false),
			cpuGoal(rows, target),
			simGoal(rows, target))
	}
	return notes
}

// rowAt is target's row at level (percent), or nil.
func rowAt(rows []map[string]any, target string, level float64) map[string]any {
	for _, r := range rows {
		if r["target"] == target && r["level_pct"] == level {
			return r
		}
	}
	return nil
}

// ratioGoal states one ratio target: key at level must be >= limit (or
// <= with atMost).
func ratioGoal(rows []map[string]any, target string, level float64, key, what string, limit float64, atMost bool) string {
	head := fmt.Sprintf("target (issue 32) %s, %s", what, target)
	v, ok := rowAt(rows, target, level)[key].(float64)
	if !ok {
		return head + ": not measured in this run"
	}
	met := v >= limit
	if atMost {
		met = v <= limit
	}
	return fmt.Sprintf("%s: measured %.2fx (%s)", head, v, metOrMissed(met))
}

// cpuGoal: CPU per allocated block at 95 % within 2x of the empty disk's,
// by the allocator's own counter.
func cpuGoal(rows []map[string]any, target string) string {
	return ratioGoal(rows, target, 95, "alloc_cpu_per_block_x_empty", "CPU per allocated block at 95 % full within 2x of the empty disk's (the allocator's counter)", 2, true)
}

// simGoal: simulated update latency within 15 % of formula (2) at every
// level up to 95 %.
func simGoal(rows []map[string]any, target string) string {
	head := "target (issue 32) simulated update latency within 15 % of formula (2) up to 95 %, " + target
	var parts []string
	worst := 0.0
	for _, r := range rows {
		d, ok := r["sim_diff_pct"].(float64)
		if r["target"] != target || !ok || r["level_pct"].(float64) > 95 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%+.1f %% at %g %%", d, r["level_pct"]))
		worst = math.Max(worst, math.Abs(d))
	}
	if len(parts) == 0 {
		return head + ": not measured in this run"
	}
	return fmt.Sprintf("%s: measured %s (%s)", head, strings.Join(parts, ", "), metOrMissed(worst <= 15))
}

func metOrMissed(met bool) string {
	if met {
		return "MET"
	}
	return "MISSED"
}
