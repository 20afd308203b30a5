package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// rangesRun runs a quick subset of the range-writes figures.
func rangesRun(t *testing.T, figures ...string) *Report {
	t.Helper()
	m, err := disk.Preset("hpc2247a")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Ranges(RangesConfig{Model: m, Quick: true, Ops: 400, Figures: figures})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// rangesMean finds a row's mean_ms by its parameters.
func rangesMean(t *testing.T, rep *Report, match map[string]any) map[string]any {
	t.Helper()
	for _, r := range rep.Rows {
		ok := true
		for k, v := range match {
			ok = ok && r[k] == v
		}
		if ok {
			return r
		}
	}
	t.Fatalf("no row %v", match)
	return nil
}

// TestRangesShapes checks the paper's qualitative results on the simulated
// HP C2247A: the headline factor of section 4.4.2 (at least 3x at Q=1),
// track-sized ranges removing rotation, group-sized ranges removing seek
// within a group, and eight equally spaced choices capturing most of the
// gain of a whole track (Figure 8).
func TestRangesShapes(t *testing.T) {
	rep := rangesRun(t, "5", "6", "choices", "8")
	one := rangesMean(t, rep, map[string]any{"figure": "choices", "range_blocks": 1, "choices": 1})
	best := rangesMean(t, rep, map[string]any{"figure": "choices", "range_blocks": RangesTrackRange, "choices": 64})
	if f := one["mean_ms"].(float64) / best["mean_ms"].(float64); f < 3 {
		t.Errorf("headline: %.2f ms vs %.2f ms, only %.1fx", one["mean_ms"], best["mean_ms"], f)
	}
	track := rangesMean(t, rep, map[string]any{"figure": "5", "span": "group", "queue_depth": 1})
	if r := track["rotation_ms"].(float64); r > 0.05*one["rotation_ms"].(float64) {
		t.Errorf("track-sized ranges leave %.3f ms of rotation (exact writes %.3f)", r, one["rotation_ms"])
	}
	group := rangesMean(t, rep, map[string]any{"figure": "6", "span": "group", "queue_depth": 1})
	if s := group["seek_ms"].(float64); s > 0.1*one["seek_ms"].(float64) {
		t.Errorf("group-sized ranges leave %.3f ms of seek (exact writes %.3f)", s, one["seek_ms"])
	}
	k1 := rangesMean(t, rep, map[string]any{"figure": "8", "ecs_targets": 1})["mean_ms"].(float64)
	k8 := rangesMean(t, rep, map[string]any{"figure": "8", "ecs_targets": 8})["mean_ms"].(float64)
	all := rangesMean(t, rep, map[string]any{"figure": "8", "ecs_targets": 0})["mean_ms"].(float64)
	if (k1-k8)/(k1-all) < 0.9 {
		t.Errorf("figure 8: 1 choice %.3f ms, 8 choices %.3f ms, all %.3f ms", k1, k8, all)
	}
}

// TestRangesCost: HRS makes no more estimates than W_HR, full ECS about
// S*(Q-1), and both reach the same mean on the same workload.
func TestRangesCost(t *testing.T) {
	rep := rangesRun(t, "cost")
	for _, q := range []int{1, 16} {
		h := rangesMean(t, rep, map[string]any{"queue_depth": q, "scheduler": "hrs"})
		e := rangesMean(t, rep, map[string]any{"queue_depth": q, "scheduler": "ecs"})
		if h["estimates_per_decision"].(float64) > float64(h["w_hr"].(int)) {
			t.Errorf("Q=%d: HRS %.1f estimates > W_HR %d", q, h["estimates_per_decision"], h["w_hr"])
		}
		if e["estimates_per_decision"].(float64) < 0.9*float64(RangesTrackRange*max(q-1, 1)) {
			t.Errorf("Q=%d: ECS %.1f estimates", q, e["estimates_per_decision"])
		}
		if h["mean_ms"] != e["mean_ms"] {
			t.Errorf("Q=%d: HRS %.4f ms, ECS %.4f ms", q, h["mean_ms"], e["mean_ms"])
		}
	}
}
