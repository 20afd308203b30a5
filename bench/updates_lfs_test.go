package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
)

// TestUpdatesLFSDegradesWithUtilization: Figure 8's LFS curve rises with
// utilisation because the cleaner copies more live blocks per segment
// (simulated time, write cost).
func TestUpdatesLFSDegradesWithUtilization(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Updates(UpdatesConfig{Model: m, DiskBytes: 48 << 20, Utilizations: []float64{0.5, 0.9}, Updates: 200, Seed: 1, Placements: []vld.Placement{vld.PlaceLFS}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	lo, hi := rep.Rows[0], rep.Rows[1]
	t.Logf("lfs: 50%% %.3f ms (write cost %.2f), 90%% %.3f ms (write cost %.2f), simulated", lo["mean_ms"], lo["write_cost"], hi["mean_ms"], hi["write_cost"])
	if hi["mean_ms"].(float64) <= 1.5*lo["mean_ms"].(float64) {
		t.Errorf("lfs at 90%% (%v ms) not clearly slower than at 50%% (%v ms)", hi["mean_ms"], lo["mean_ms"])
	}
	if wl, wh := lo["write_cost"].(float64), hi["write_cost"].(float64); wl <= 1 || wh <= wl {
		t.Errorf("write cost %v at 50%%, %v at 90%%: want > 1 and rising", wl, wh)
	}
}

// TestIdleLFSNeedsLongIdle: the LFS baseline gains nothing from a short
// idle interval and runs near memory speed with a long one (Figure 10).
func TestIdleLFSNeedsLongIdle(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Idle(IdleConfig{Models: []*disk.Model{m}, DiskBytes: 48 << 20, Updates: 256, BurstKB: []int{256}, IdleMs: []float64{0, 10, 1000}, Placements: []vld.Placement{vld.PlaceLFS}})
	if err != nil {
		t.Fatal(err)
	}
	mean := map[float64]float64{}
	for _, r := range rep.Rows {
		if r["placement"] == "lfs" {
			mean[r["idle_ms"].(float64)] = r["mean_ms"].(float64)
		}
	}
	t.Logf("lfs 256 KiB bursts: idle 0 %.3f ms, 10 ms %.3f ms, 1000 ms %.3f ms (simulated)", mean[0], mean[10], mean[1000])
	if len(mean) != 3 || mean[0] <= 0 {
		t.Fatalf("rows %v", mean)
	}
	if mean[10] < 0.5*mean[0] {
		t.Errorf("a 10 ms idle interval already halves lfs latency: %v -> %v", mean[0], mean[10])
	}
	if mean[1000] > 0.2*mean[0] {
		t.Errorf("1 s idle intervals leave lfs at %v ms of %v", mean[1000], mean[0])
	}
}
