package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Rounds. On a shared machine the host's cost of a flush can move by half
// within minutes (docs/peers.md), and one run measures each target at a
// different moment, so a ratio of one run says as much about the host's
// minute as about the file systems. With Rounds > 1 RunPeers runs every
// target Rounds times, rotating which target goes first, and reports for
// each target and workload the median over the rounds of every figure (rows
// stay flat: report_shape.go), and in the notes each round's ratio for every
// target of the issues.

// roundOrder is targets rotated left by r: round r starts with target r.
func roundOrder(targets []string, r int) []string {
	if len(targets) == 0 {
		return nil
	}
	k := r % len(targets)
	return append(slices.Clone(targets[k:]), targets[:k]...)
}

// mergeRounds turns the rows of several rounds into one row per target and
// workload: numeric fields are the median over the rounds that have them,
// other fields are the first round's. Rows come out by target (PeerTargets
// order), then workload (as first run). One round is returned as it is.
func mergeRounds(rounds [][]map[string]any) []map[string]any {
	if len(rounds) == 1 {
		return rounds[0]
	}
	type key struct{ target, workload string }
	var keys []key
	groups := map[key][]map[string]any{}
	workOrder := map[string]int{}
	for _, rows := range rounds {
		for _, r := range rows {
			k := key{r["target"].(string), r["workload"].(string)}
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			if _, ok := workOrder[k.workload]; !ok {
				workOrder[k.workload] = len(workOrder)
			}
			groups[k] = append(groups[k], r)
		}
	}
	targetOrder := func(t string) int { return slices.Index(PeerTargets(), t) }
	slices.SortStableFunc(keys, func(a, b key) int {
		if d := targetOrder(a.target) - targetOrder(b.target); d != 0 {
			return d
		}
		return workOrder[a.workload] - workOrder[b.workload]
	})
	out := make([]map[string]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, mergeRows(groups[k]))
	}
	return out
}

// mergeRows is one target and workload over the rounds.
func mergeRows(rows []map[string]any) map[string]any {
	m := map[string]any{}
	nums := map[string][]float64{}
	for _, r := range rows {
		for k, v := range r {
			if x, ok := v.(float64); ok {
				nums[k] = append(nums[k], x)
			} else if _, seen := m[k]; !seen {
				m[k] = v
			}
		}
	}
	for k, xs := range nums {
		m[k] = median(xs)
	}
	m["rounds"] = float64(len(rows))
	return m
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// roundNotes lists, for each target of the issues that the rounds
// measured, its ratio in every round beside the median: how far one run's
// verdict can be trusted.
func roundNotes(rounds [][]map[string]any) []string {
	if len(rounds) < 2 {
		return nil
	}
	per := make([]*Report, len(rounds))
	for i, rows := range rounds {
		per[i] = &Report{Rows: rows}
		addRatios(per[i])
	}
	var notes []string
	for _, g := range peerGoals() {
		var vals []string
		var xs []float64
		for _, rep := range per {
			for _, r := range rep.Rows {
				if r["target"] == PeerVLFS && r["workload"] == g.workload {
					if x, ok := r[g.key].(float64); ok {
						xs = append(xs, x)
						vals = append(vals, fmt.Sprintf("%.2f", x))
					}
				}
			}
		}
		if len(xs) == 0 {
			continue
		}
		met := 0
		for _, x := range xs {
			if g.met(x) {
				met++
			}
		}
		notes = append(notes, fmt.Sprintf("rounds (issue %s) %s: %s (median %.2fx; met in %d of %d rounds)",
			g.issue, g.what, strings.Join(vals, ", "), median(xs), met, len(xs)))
	}
	return notes
}
