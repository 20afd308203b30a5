package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

func TestSmallfile(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Smallfile(SmallfileConfig{Model: m, DiskBytes: 64 << 20, Files: 150})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 9 {
		t.Fatalf("%d rows, want 3 placements x 3 phases", len(rep.Rows))
	}
	ms := map[string]float64{}
	for _, r := range rep.Rows {
		t.Logf("%-8s %-7s %9.1f ms  x%.2f", r["placement"], r["phase"], r["time_ms"], r["normalized"])
		ms[r["placement"].(string)+"/"+r["phase"].(string)] = r["time_ms"].(float64)
		if r["time_ms"].(float64) <= 0 {
			t.Errorf("row %v: no simulated time", r)
		}
	}
	// Synchronous small creates are what eager writing speeds up most.
	if ms["eager/create"] >= ms["inplace/create"] {
		t.Errorf("create: eager %.1f ms not faster than inplace %.1f ms", ms["eager/create"], ms["inplace/create"])
	}
}
