package main

import (
	"slices"
	"strings"
	"testing"
)

// TestBenchUpdatesVLFS: --placement takes vlfs beside the logical disk's
// placements in bench updates and breakdown, --fs-version reaches mkfs
// and the rows say which version ran, and the flags' misuses are usage
// errors.
func TestBenchUpdatesVLFS(t *testing.T) {
	small := []string{"--quick", "--updates", "50", "--disk-mib", "16", "--json"}
	for _, tc := range []struct {
		args    []string
		code    int
		order   []string // the rows' placements (exit 0)
		version float64  // the vlfs rows' fs_version; 0: any
		stderr  string   // in stderr (exit != 0)
	}{
		{[]string{"bench", "updates", "--placement", "vlfs"}, exitOK, []string{"vlfs", "vlfs"}, 0, ""},
		{[]string{"bench", "updates", "--placement", "vlfs,eager", "--fs-version", "1"}, exitOK, []string{"eager", "eager", "vlfs", "vlfs"}, 1, ""},
		{[]string{"bench", "breakdown", "--disk", "st19101"}, exitOK, []string{"inplace", "eager", "vlfs"}, 0, ""},
		{[]string{"bench", "breakdown", "--disk", "st19101", "--placement", "inplace,vlfs", "--fs-version", "2"}, exitOK, []string{"inplace", "vlfs"}, 2, ""},
		{[]string{"bench", "updates", "--placement", "eager", "--fs-version", "2"}, exitUsage, nil, 0, "applies to the vlfs row"},
		{[]string{"bench", "breakdown", "--placement", "inplace,eager", "--fs-version", "2"}, exitUsage, nil, 0, "applies to the vlfs row"},
		{[]string{"bench", "updates", "--placement", "vlfs", "--fs-version", "1073741824"}, exitUsage, nil, 0, "--fs-version"},
		{[]string{"bench", "updates", "--placement", "vlfs,range"}, exitUsage, nil, 0, "also takes vlfs"},
		{[]string{"bench", "updates", "--fs-version", "-1"}, exitUsage, nil, 0, "fs-version"},
	} {
		args := append(append([]string(nil), tc.args...), small...)
		code, out, errb := runBenchCmd(t, args...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errb)
		}
		if code != exitOK {
			if !strings.Contains(errb, tc.stderr) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, errb, tc.stderr)
			}
			continue
		}
		var order []string
		for _, row := range decodeBench(t, out).Rows {
			order = append(order, row["placement"].(string))
			if row["placement"] != "vlfs" {
				continue
			}
			if v, _ := row["fs_version"].(float64); v <= 0 || (tc.version != 0 && v != tc.version) {
				t.Errorf("%v: fs_version %v, want %v", tc.args, row["fs_version"], tc.version)
			}
			if b, _ := row["blocks_per_update"].(float64); b < 1 {
				t.Errorf("%v: blocks_per_update %v", tc.args, row["blocks_per_update"])
			}
		}
		if !slices.Equal(order, tc.order) {
			t.Errorf("%v: rows %v, want %v", tc.args, order, tc.order)
		}
	}
}
