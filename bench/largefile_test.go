package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

func TestLargefile(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Largefile(LargefileConfig{Model: m, DiskBytes: 64 << 20, FileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 6+6+5 {
		t.Fatalf("%d rows, want 17 (lfs has no synchronous random write)", len(rep.Rows))
	}
	ms := map[string]float64{}
	for _, r := range rep.Rows {
		t.Logf("%-8s %-16s %9.1f ms %7.2f MB/s x%.2f", r["placement"], r["phase"], r["time_ms"], r["mb_s"], r["normalized"])
		ms[r["placement"].(string)+"/"+r["phase"].(string)] = r["time_ms"].(float64)
		if r["time_ms"].(float64) <= 0 {
			t.Errorf("row %v: no simulated time", r)
		}
	}
	if ms["eager/rand-write-sync"] >= ms["inplace/rand-write-sync"] {
		t.Errorf("synchronous random writes: eager %.1f ms not faster than inplace %.1f ms", ms["eager/rand-write-sync"], ms["inplace/rand-write-sync"])
	}
}
