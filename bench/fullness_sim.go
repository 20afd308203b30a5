package bench

import (
	"cmp"
	"slices"

	"github.com/vlfs/vlfs/vld"
)

// The simulated part of the fullness bench: bench updates' eager points
// (random synchronous 4 KiB updates of a file filling the level's share of
// a simulated logical disk) at every level, against formula (2)'s
// prediction for that utilisation (eagerLowerBound: one controller
// overhead, the transfer of the data block and its log entry, and the
// locate time). Compactor off is the fragmented steady state with no idle
// time; on is the same right after an offline compactor run
// (UpdatesConfig.Compacted), as the paper measured its Table 2.

// simKey names a simulated point: a vlfs target and a level.
type simKey struct {
	target string
	level  float64 // percent, as level_pct
}

// fullnessSim runs the simulated points for the selected vlfs targets.
func fullnessSim(cfg FullnessConfig) (map[simKey]map[string]any, error) {
	out := map[simKey]map[string]any{}
	for _, target := range []string{FullVLFSOn, FullVLFSOff} {
		if !slices.Contains(cfg.Targets, target) {
			continue
		}
		cfg.Logf("fullness: simulated updates at every level, %s", target)
		rep, err := Updates(UpdatesConfig{Model: cfg.Model, Utilizations: cfg.Levels, Updates: cfg.SimUpdates,
			Seed: cfg.Seed, Placements: []vld.Placement{vld.PlaceEager}, Compacted: target == FullVLFSOn})
		if err != nil {
			return nil, err
		}
		for _, r := range rep.Rows {
			u, mean := r["utilization"].(float64), r["mean_ms"].(float64)
			model, err := eagerLowerBound(cfg.Model, u, false)
			if err != nil {
				return nil, err
			}
			out[simKey{target, levelPct(u)}] = map[string]any{
				"sim_utilization": u, "sim_update_ms": mean, "sim_model_ms": model, "sim_diff_pct": diffPct(mean, model),
			}
		}
	}
	return out, nil
}

// mergeSim puts each simulated point in the wall-clock row of its target
// and level, or in a row of its own where that target did not run.
func mergeSim(rows []map[string]any, sim map[simKey]map[string]any) []map[string]any {
	for _, r := range rows {
		k := simKey{r["target"].(string), r["level_pct"].(float64)}
		for c, v := range sim[k] {
			r[c] = v
		}
		delete(sim, k)
	}
	keys := make([]simKey, 0, len(sim))
	for k := range sim {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b simKey) int {
		if a.target != b.target {
			return cmp.Compare(b.target, a.target) // on before off, as FullnessTargets
		}
		return cmp.Compare(a.level, b.level)
	})
	for _, k := range keys {
		r := map[string]any{"target": k.target, "level_pct": k.level}
		for c, v := range sim[k] {
			r[c] = v
		}
		rows = append(rows, r)
	}
	return rows
}
