package sched

import (
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

func TestParseBatch(t *testing.T) {
	cases := []struct {
		in   string
		want Batch
		err  bool
	}{
		{"auto", Batch{Mode: BatchAuto}, false},
		{"auto-track", Batch{Mode: BatchAutoTrack}, false},
		{"track", Batch{Mode: BatchAutoTrack}, false},
		{"segment", Batch{Mode: BatchSegment}, false},
		{"fifo", Batch{}, false},
		{"7", Batch{Mode: BatchFixed, Blocks: 7}, false},
		{"0", Batch{}, true},
		{"-3", Batch{}, true},
		{"NaN", Batch{}, true},
		{"", Batch{}, true},
		{"1.5", Batch{}, true},
	}
	for _, c := range cases {
		got, err := ParseBatch(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseBatch(%q) = %+v, %v", c.in, got, err)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), "batch") || !strings.Contains(err.Error(), "want auto")) {
			t.Errorf("ParseBatch(%q): error %v should name the batch and the values allowed", c.in, err)
		}
		if err == nil && c.in != "track" {
			if s := got.String(); s != c.in {
				t.Errorf("String() = %q, want %q", s, c.in)
			}
		}
	}
}

// TestBatchBlocksFor pins the sizes each policy puts in force; auto is the
// whole size `vlfs cstar` prints (BestBatch of formula 10).
func TestBatchBlocksFor(t *testing.T) {
	cs, err := disk.Preset("carson-setia")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		b    Batch
		m    *disk.Model
		bs   int
		want int
	}{
		{Batch{}, cs, 8192, 0},
		{Batch{Mode: BatchAuto}, cs, 8192, 5},       // c* = 5.45 blocks of 4 ms
		{Batch{Mode: BatchAutoTrack}, cs, 8192, 4},  // tracks of 4 blocks: 4 beats 8 by formula 8
		{Batch{Mode: BatchAuto}, cs, 1024, 44},      // the same 43.6 KB in 1 KiB blocks
		{Batch{Mode: BatchAutoTrack}, cs, 1024, 32}, // 32-block tracks
		{Batch{Mode: BatchSegment}, cs, 8192, 64},   // 512 KiB
		{Batch{Mode: BatchSegment}, cs, 4096, 128},  //
		{Batch{Mode: BatchFixed, Blocks: 3}, nil, 4096, 3},
	}
	for _, c := range cases {
		got, err := BatchBlocksFor(c.b, c.m, c.bs)
		if err != nil || got != c.want {
			t.Errorf("%s at %d: %d, %v; want %d", c.b, c.bs, got, err, c.want)
		}
	}
	for _, name := range disk.PresetNames() {
		m, err := disk.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		in, err := disk.CStarFor(m, 4096)
		if err != nil {
			t.Fatal(err)
		}
		got, err := BatchBlocksFor(Batch{Mode: BatchAuto}, m, 4096)
		if err != nil || got != in.Batch || got < 1 {
			t.Errorf("%s: auto %d, %v; c* %.2f, batch %d", name, got, err, in.CStar, in.Batch)
		}
	}
	bad := []struct {
		b    Batch
		m    *disk.Model
		bs   int
		name string
	}{
		{Batch{Mode: BatchFixed}, cs, 4096, "blocks"},
		{Batch{Mode: BatchFixed, Blocks: -2}, cs, 4096, "blocks"},
		{Batch{Mode: BatchAuto}, cs, 0, "block size"},
		{Batch{Mode: BatchAuto}, nil, 4096, "disk model"},
		{Batch{Mode: 99}, cs, 4096, "mode"},
	}
	for _, c := range bad {
		if _, err := BatchBlocksFor(c.b, c.m, c.bs); err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%+v: %v, want an error naming %q", c.b, err, c.name)
		}
	}
}
