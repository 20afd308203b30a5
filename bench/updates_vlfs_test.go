package bench

import (
	"errors"
	"slices"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// TestUpdatesVLFSRow runs the vlfs row on a small disk: it must cost
// something on every axis, say which file-system version it made, and
// under version 2 write at least the data block and its metadata per
// update (more than one block: the data alone cannot be found again).
// The rows keep their order: vlfs follows eager, whose VLD it runs on.
func TestUpdatesVLFSRow(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		placements []vld.Placement
		version    uint32
		compacted  bool
		order      []string // placements of the rows, in order
		minBlocks  float64  // blocks_per_update of the vlfs rows, at least
	}{
		{"default version alone", nil, 0, false, []string{"vlfs", "vlfs"}, 1},
		{"version 2 after eager", []vld.Placement{vld.PlaceInPlace, vld.PlaceEager}, 2, false, []string{"inplace", "inplace", "eager", "eager", "vlfs", "vlfs"}, 2},
		{"version 1 last without eager", []vld.Placement{vld.PlaceInPlace}, 1, false, []string{"inplace", "inplace", "vlfs", "vlfs"}, 2},
		{"version 2 compacted", nil, 2, true, []string{"vlfs", "vlfs"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Updates(UpdatesConfig{Model: m, DiskBytes: 16 << 20, Utilizations: []float64{0, 0.8}, Updates: 100, Seed: 2,
				Placements: tc.placements, VLFS: true, FSVersion: tc.version, Compacted: tc.compacted})
			if err != nil {
				t.Fatal(err)
			}
			var order []string
			for _, r := range rep.Rows {
				order = append(order, r["placement"].(string))
				if _, ok := r["blocks_per_update"].(float64); !ok {
					t.Errorf("row without blocks_per_update: %v", r)
				}
			}
			if !slices.Equal(order, tc.order) {
				t.Fatalf("rows %v, want %v", order, tc.order)
			}
			for _, r := range rep.Rows {
				if r["placement"] != PlaceVLFS {
					continue
				}
				checkVLFSRow(t, r, tc.version, tc.minBlocks)
				if got, _ := r["compacted"].(bool); got != tc.compacted {
					t.Errorf("compacted %v, want %v", r["compacted"], tc.compacted)
				}
			}
		})
	}
}

// checkVLFSRow: a vlfs row's costs are positive, its blocks at least
// minBlocks, and it names the version made (want, or any for 0).
func checkVLFSRow(t *testing.T, r map[string]any, want uint32, minBlocks float64) {
	t.Helper()
	t.Logf("vlfs at %v: %.3f ms, %.2f blocks, %.2f requests, %.2f flushes per update, version %v (simulated)",
		r["utilization"], r["mean_ms"], r["blocks_per_update"], r["requests_per_update"], r["flushes_per_update"], r["fs_version"])
	if ms := r["mean_ms"].(float64); ms <= 0 {
		t.Errorf("mean_ms %v", ms)
	}
	if b := r["blocks_per_update"].(float64); b < minBlocks {
		t.Errorf("blocks_per_update %v < %v", b, minBlocks)
	}
	for _, k := range []string{"requests_per_update", "flushes_per_update"} {
		if v := r[k].(float64); v < 1 {
			t.Errorf("%s %v < 1: an fsync'd update reaches the device", k, v)
		}
	}
	v := r["fs_version"].(int)
	if v <= 0 || (want != 0 && v != int(want)) {
		t.Errorf("fs_version %d, asked for %d", v, want)
	}
}

// TestUpdatesVLFSBadVersion: a version mkfs refuses fails the run before
// any row, with vlfs.ErrInvalid (which the command reports as a usage
// error).
func TestUpdatesVLFSBadVersion(t *testing.T) {
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Updates(UpdatesConfig{Model: m, DiskBytes: 16 << 20, Utilizations: []float64{0.5}, Updates: 10, VLFS: true, FSVersion: 1 << 30})
	if !errors.Is(err, vlfs.ErrInvalid) || rep != nil {
		t.Fatalf("version 1<<30: report %v, error %v; want vlfs.ErrInvalid", rep, err)
	}
}
