package bench

import (
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld"
)

// TestFullnessRatiosAndGoals: ratios divide by the same target's empty
// row, simulated points join their target's row or make their own, and
// the verdicts read the ratios.
func TestFullnessRatiosAndGoals(t *testing.T) {
	rows := []map[string]any{
		{"target": FullVLFSOff, "level_pct": 0.0, "write200k_ops_s": 1000.0, "server_cpu_ms_per_block": 0.01, "alloc_cpu_ms_per_block": 0.0002},
		{"target": FullVLFSOff, "level_pct": 80.0, "write200k_ops_s": 800.0, "server_cpu_ms_per_block": 0.015, "alloc_cpu_ms_per_block": nil},
		{"target": FullVLFSOff, "level_pct": 95.0, "write200k_ops_s": 400.0, "server_cpu_ms_per_block": 0.03, "alloc_cpu_ms_per_block": 0.0006},
		{"target": FullExt4, "level_pct": 80.0, "write200k_ops_s": 900.0},
	}
	sim := map[simKey]map[string]any{
		{FullVLFSOff, 80}: {"sim_diff_pct": -10.0},
		{FullVLFSOff, 95}: {"sim_diff_pct": 20.0},
		{FullVLFSOn, 80}:  {"sim_diff_pct": 1.0},
	}
	rows = mergeSim(rows, sim)
	emptyRatios(rows)
	if v := rows[1]["write200k_x_empty"]; v != 0.8 {
		t.Errorf("80 %% ratio %v, want 0.8", v)
	}
	if _, ok := rows[3]["write200k_x_empty"]; ok {
		t.Errorf("ext4 has no empty row, yet a ratio: %v", rows[3])
	}
	if _, ok := rows[1]["alloc_cpu_per_block_x_empty"]; ok {
		t.Errorf("a ratio of null counters: %v", rows[1])
	}
	if len(rows) != 5 || rows[4]["target"] != FullVLFSOn || rows[1]["sim_diff_pct"] != -10.0 {
		t.Fatalf("merged rows %v", rows)
	}
	notes := strings.Join(fullnessNotes(FullnessConfig{}, rows), "\n")
	for _, want := range []string{
		"at 80 % full at least 0.7x the empty image's, vlfs-compactor-off: measured 0.80x (MET)",
		"at 95 % full at least 0.5x the empty image's, vlfs-compactor-off: measured 0.40x (MISSED)",
		"(the allocator's counter), vlfs-compactor-off: measured 3.00x (MISSED)",
		"up to 95 %, vlfs-compactor-off: measured -10.0 % at 80 %, +20.0 % at 95 % (MISSED)",
		"up to 95 %, vlfs-compactor-on: measured +1.0 % at 80 % (MET)",
		"at 80 % full at least 0.7x the empty image's, vlfs-compactor-on: not measured in this run",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestFullnessLevels: levels are sorted and deduplicated; 100 % and
// negative levels are refused.
func TestFullnessLevels(t *testing.T) {
	got, err := checkLevels([]float64{0.8, 0, 0.8, 0.5})
	if err != nil || len(got) != 3 || got[0] != 0 || got[2] != 0.8 {
		t.Errorf("checkLevels: %v %v", got, err)
	}
	for _, bad := range []float64{1, -0.1} {
		if _, err := checkLevels([]float64{bad}); err == nil {
			t.Errorf("level %v accepted", bad)
		}
	}
}

// TestBlockCosts: the allocator's CPU per block is the counters'
// difference over the phases; with no block placed it is null ("-").
func TestBlockCosts(t *testing.T) {
	row := map[string]any{}
	blockCosts(row, phaseResult{isVLFS: true, ops: 1, vol0: vld.Stats{AllocNs: 1000, AllocBlocks: 10},
		vol1: vld.Stats{BlocksWritten: 10, AllocNs: 5000, AllocBlocks: 30}})
	if v := row["alloc_cpu_ms_per_block"]; v != 4000.0/1e6/20 {
		t.Errorf("alloc_cpu_ms_per_block = %v, want %v", v, 4000.0/1e6/20)
	}
	row = map[string]any{}
	blockCosts(row, phaseResult{isVLFS: true, ops: 1, vol1: vld.Stats{BlocksWritten: 10}})
	if v, ok := row["alloc_cpu_ms_per_block"]; !ok || v != nil {
		t.Errorf("alloc_cpu_ms_per_block = %v (present %v), want null", v, ok)
	}
}
