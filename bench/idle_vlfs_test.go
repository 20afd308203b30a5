package bench

import (
	"math"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
)

func TestDepthGeometry(t *testing.T) {
	g := newDepthGeometry(4096, false) // 12 direct, 509 addresses per indirect block
	const single, double = 12, 12 + 509
	for _, c := range []struct {
		lbn  int64
		want ptrDepth
	}{
		{0, 0}, {11, 0},
		{single, 1}, {double - 1, 1},
		{double, 2}, {double + 509*509 - 1, 2},
		{double + 509*509, 3},
	} {
		if d := g.depth(c.lbn); d != c.want {
			t.Errorf("depth(%d) = %v, want %v", c.lbn, d, c.want)
		}
	}
	for _, c := range []struct {
		n    int64
		want ptrDepth
	}{
		{10, 0}, {300, 1}, {double + 508, 1}, {double + 510, 2}, {26000, 2},
	} {
		if d := g.fileDepth(c.n); d != c.want {
			t.Errorf("fileDepth(%d) = %v, want %v", c.n, d, c.want)
		}
	}
	if r := g.depthMatched(2, 327); r.base != double || r.n != 327 {
		t.Errorf("depthMatched(double, 327) = %+v, want base %d", r, double)
	}
	// Version 4: 8 direct, 339 per indirect block.
	s := newDepthGeometry(4096, true)
	if d := s.depth(8); d != 1 {
		t.Errorf("summed depth(8) = %v, want single-indirect", d)
	}
	if d := s.depth(8 + 339); d != 2 {
		t.Errorf("summed depth(347) = %v, want double-indirect", d)
	}
}

// TestIdleVLFSReferenceDepth: the vlfs empty-file-system reference updates
// blocks at the pointer depth of the 80 % rows' updates, by the blocks'
// numbers (update_depth) and by what each update writes (blocks_per_update:
// one indirect block more or less shows as about 1). A reference that went
// back to a small file from block 0 (single indirect) fails both.
func TestIdleVLFSReferenceDepth(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Idle(IdleConfig{Models: []*disk.Model{m}, DiskBytes: 16 << 20, BurstKB: []int{128}, IdleMs: []float64{0}, Updates: 256, Seed: 3,
		Placements: []vld.Placement{vld.PlaceEager}, VLFS: true})
	if err != nil {
		t.Fatal(err)
	}
	var ref, off map[string]any
	var at80 []map[string]any
	for _, r := range rep.Rows {
		if r["system"] != "vlfs" {
			continue
		}
		switch {
		case r["utilization"] == 0.0:
			ref = r
		default:
			at80 = append(at80, r)
			if r["compactor"] == "off" {
				off = r
			}
		}
	}
	if ref == nil || off == nil || len(at80) != 2 {
		t.Fatalf("vlfs rows: reference %v, 80 %% %v", ref, at80)
	}
	if ref["update_depth"] != "double-indirect" || ref["reference_depth"] != ref["update_depth"] {
		t.Fatalf("reference row: update_depth %v, reference_depth %v; want double-indirect", ref["update_depth"], ref["reference_depth"])
	}
	for _, r := range at80 {
		if r["update_depth"] != ref["update_depth"] || r["reference_depth"] != ref["update_depth"] {
			t.Fatalf("80 %% row (compactor %v): update_depth %v, reference_depth %v; the reference updated %v",
				r["compactor"], r["update_depth"], r["reference_depth"], ref["update_depth"])
		}
	}
	rb, ob := ref["blocks_per_update"].(float64), off["blocks_per_update"].(float64)
	t.Logf("blocks written per update: reference %.2f, 80 %% (compactor off, idle 0) %.2f; mean %.3f and %.3f ms simulated",
		rb, ob, ref["mean_ms"], off["mean_ms"])
	if math.Abs(rb-ob) >= 0.5 {
		t.Fatalf("blocks written per update: reference %.2f, 80 %% %.2f: not the same depth", rb, ob)
	}
}
