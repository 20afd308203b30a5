package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestUpdatesEagerBeatsInPlace runs a short Figure 8 sweep and checks the
// direction and rough size of the effect the paper reports: eager writing
// at least 3x faster than update-in-place at 80 % on st19101 (simulated).
func TestUpdatesEagerBeatsInPlace(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Updates(UpdatesConfig{Model: m, DiskBytes: 64 << 20, Utilizations: []float64{0.8}, Updates: 400, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string]float64{}
	for _, r := range rep.Rows {
		mean[r["placement"].(string)] = r["mean_ms"].(float64)
	}
	t.Logf("80%%: inplace %.3f ms, eager %.3f ms (simulated)", mean["inplace"], mean["eager"])
	if mean["eager"] <= 0 || mean["inplace"] < 3*mean["eager"] {
		t.Fatalf("eager %.3f ms vs inplace %.3f ms: speed-up below 3x", mean["eager"], mean["inplace"])
	}
}

func TestBreakdownRows(t *testing.T) {
	rep, err := Breakdown(BreakdownConfig{DiskBytes: 32 << 20, Updates: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 4 {
		t.Fatalf("%d rows, want 2 disks x 2 placements", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		sum := r["overhead_ms"].(float64) + r["transfer_ms"].(float64) + r["locate_ms"].(float64) + r["other_ms"].(float64)
		if mean := r["mean_ms"].(float64); sum > mean*1.0001 || sum < mean*0.999 {
			t.Errorf("%v %v: parts sum to %.4f, mean %.4f", r["disk"], r["placement"], sum, mean)
		}
		if r["placement"] == "eager" && r["speedup"].(float64) <= 1 {
			t.Errorf("%v: eager not faster than in place: %v", r["disk"], r["speedup"])
		}
	}
	if _, err := Breakdown(BreakdownConfig{Utilization: 1.5}); err == nil {
		t.Error("utilization 1.5 accepted")
	}
}
