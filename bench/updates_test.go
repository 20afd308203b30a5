package bench

import (
	"testing"

	"github.com/vlfs/vlfs/vld"
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

// TestBreakdownRows: every row's parts add up to its mean, eager beats in
// place, and the vlfs row (when asked for) sits beside eager with its
// ratio to it (vs_eager) and what it writes.
func TestBreakdownRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		vlfs bool
		rows int
	}{
		{"logical disk", false, 4}, // 2 disks x inplace, eager
		{"with vlfs", true, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Version 2 by name: the at-least-2-blocks check below is its
			// (data, then the holders), whatever mkfs makes by default.
			rep, err := Breakdown(BreakdownConfig{DiskBytes: 32 << 20, Updates: 200, Seed: 1, VLFS: tc.vlfs, FSVersion: 2,
				Placements: []vld.Placement{vld.PlaceInPlace, vld.PlaceEager}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Rows) != tc.rows {
				t.Fatalf("%d rows, want %d", len(rep.Rows), tc.rows)
			}
			eager := map[any]float64{}
			for _, r := range rep.Rows {
				checkBreakdownRow(t, r)
				if r["placement"] == "eager" {
					eager[r["disk"]] = r["mean_ms"].(float64)
				}
				if r["placement"] != PlaceVLFS {
					continue
				}
				if want := r["mean_ms"].(float64) / eager[r["disk"]]; r["vs_eager"] != want {
					t.Errorf("%v: vs_eager %v, want %v (the eager row comes first)", r["disk"], r["vs_eager"], want)
				}
				if b := r["blocks_per_update"].(float64); b < 2 {
					t.Errorf("%v: vlfs writes %v blocks per update, want at least 2 (version 2)", r["disk"], b)
				}
				if v := r["fs_version"]; v != 2 {
					t.Errorf("%v: fs_version %v, asked for 2", r["disk"], v)
				}
			}
		})
	}
	if _, err := Breakdown(BreakdownConfig{Utilization: 1.5}); err == nil {
		t.Error("utilization 1.5 accepted")
	}
}

// checkBreakdownRow: the parts sum to the mean, the update reached the
// device, and eager is faster than in place.
func checkBreakdownRow(t *testing.T, r map[string]any) {
	t.Helper()
	sum := r["overhead_ms"].(float64) + r["transfer_ms"].(float64) + r["locate_ms"].(float64) + r["other_ms"].(float64)
	if mean := r["mean_ms"].(float64); sum > mean*1.0001 || sum < mean*0.999 {
		t.Errorf("%v %v: parts sum to %.4f, mean %.4f", r["disk"], r["placement"], sum, mean)
	}
	if b, q := r["blocks_per_update"].(float64), r["requests_per_update"].(float64); b < 1 || q < 1 {
		t.Errorf("%v %v: %v blocks, %v requests per update", r["disk"], r["placement"], b, q)
	}
	if r["placement"] == "eager" && r["speedup"].(float64) <= 1 {
		t.Errorf("%v: eager not faster than in place: %v", r["disk"], r["speedup"])
	}
}

// TestUpdatesSeedsAverage: with Seeds, each row (the logical disk's, LFS's
// and the file system's) is the mean of the single-seed rows of seeds
// Seed, Seed+1, ...; its identity columns stay, and the report says how
// many seeds it averaged.
func TestUpdatesSeedsAverage(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	cfg := UpdatesConfig{Model: m, DiskBytes: 32 << 20, Utilizations: []float64{0.8}, Updates: 200, Seed: 4,
		Placements: []vld.Placement{vld.PlaceEager, vld.PlaceLFS}, VLFS: true}
	one := func(seed int64) []map[string]any {
		c := cfg
		c.Seed = seed
		rep, err := Updates(c)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Rows
	}
	a, b := one(4), one(5)
	cfg.Seeds = 2
	rep, err := Updates(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Params["seeds"] != 2 || len(rep.Rows) != len(a) {
		t.Fatalf("params %v, %d rows (want %d)", rep.Params, len(rep.Rows), len(a))
	}
	for i, r := range rep.Rows {
		if r["placement"] != a[i]["placement"] || r["utilization"] != a[i]["utilization"] {
			t.Fatalf("row %d: %v at %v, want %v at %v", i, r["placement"], r["utilization"], a[i]["placement"], a[i]["utilization"])
		}
		for _, k := range []string{"mean_ms", "blocks_per_update", "requests_per_update"} {
			want := (asFloat(a[i][k]) + asFloat(b[i][k])) / 2
			if got := asFloat(r[k]); got != want {
				t.Fatalf("row %d (%v) %s: %v, want the mean of %v and %v", i, r["placement"], k, got, a[i][k], b[i][k])
			}
		}
		// A seed's updates land where that seed's layout lets them.
		if r["placement"] == "eager" && asFloat(a[i]["mean_ms"]) == asFloat(b[i]["mean_ms"]) {
			t.Fatalf("row %d (%v): seeds 4 and 5 gave the same mean: the seed is not used", i, r["placement"])
		}
	}
}
