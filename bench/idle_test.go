package bench

import (
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
)

func TestIdleRows(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Idle(IdleConfig{Models: []*disk.Model{m}, DiskBytes: 16 << 20, BurstKB: []int{128}, IdleMs: []float64{0, 300}, Updates: 256, Seed: 3, Placements: []vld.Placement{vld.PlaceEager}})
	if err != nil {
		t.Fatal(err)
	}
	// One empty-disk row, then off and on for each idle interval.
	want := []struct {
		compactor string
		util      float64
		idle      float64
	}{{"off", 0, 0}, {"off", 0.8, 0}, {"off", 0.8, 300}, {"on", 0.8, 0}, {"on", 0.8, 300}}
	if len(rep.Rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rep.Rows), len(want))
	}
	for i, w := range want {
		r := rep.Rows[i]
		if r["compactor"] != w.compactor || r["utilization"] != w.util || r["idle_ms"] != w.idle || r["burst_kb"] != 128 || r["placement"] != "eager" {
			t.Fatalf("row %d: %v, want %+v", i, r, w)
		}
		if ms, ok := r["mean_ms"].(float64); !ok || ms <= 0 {
			t.Fatalf("row %d: mean_ms %v", i, r["mean_ms"])
		}
	}
	// Without idle time the compactor does nothing: same as off.
	if rep.Rows[1]["mean_ms"] != rep.Rows[3]["mean_ms"] || rep.Rows[3]["moved_per_burst"] != 0.0 {
		t.Fatalf("idle 0: off %v, on %v (moved %v)", rep.Rows[1]["mean_ms"], rep.Rows[3]["mean_ms"], rep.Rows[3]["moved_per_burst"])
	}
	empty, off, on := rep.Rows[0]["mean_ms"].(float64), rep.Rows[2]["mean_ms"].(float64), rep.Rows[4]["mean_ms"].(float64)
	t.Logf("empty %.3f ms, 80%% without compactor %.3f, with %.3f", empty, off, on)
	if !(empty < off && on < off) {
		t.Fatalf("empty %.3f, off %.3f, on %.3f: the compactor should bring latency down", empty, off, on)
	}
}

func TestIdleRejectsBadConfig(t *testing.T) {
	for _, cfg := range []IdleConfig{
		{Utilization: 1.2},
		{BurstKB: []int{6}},
		{IdleMs: []float64{-1}},
	} {
		if _, err := Idle(cfg); !errors.Is(err, disk.ErrBadParameter) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
