package vld_test

import (
	"context"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// TestProfiledHeadOnSimulatedDisk profiles the simulator as a black box
// and runs synchronous random updates on a logical disk with the profiled
// head: the simulated disk charges the real mechanics, so the profile's
// worth shows in simulated time, against update in place on the same disk.
// The data must survive a reopen, with or without the profile.
func TestProfiledHeadOnSimulatedDisk(t *testing.T) {
	const size = 16 << 20
	m := testModel(t, "st19101")
	sim, err := profile.NewSim(m, 4096, size)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Measure(context.Background(), sim, profile.Config{
		Grid: profile.Grid{SkipStepBytes: 4096, Skips: 65, ThinkStepMs: 0.05, Thinks: 21}, Repetitions: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := func(place vld.Placement, o vld.Options) (*logical.Disk, device.Device, float64, map[int64]byte) {
		dev := device.NewMem(size)
		if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: m}, place); err != nil {
			t.Fatal(err)
		}
		d, err := logical.Open(keepOpen{dev}, o)
		if err != nil {
			t.Fatal(err)
		}
		file := d.Blocks() / 2
		rng := rand.New(rand.NewSource(3))
		want := map[int64]byte{}
		var t0 float64
		for i := 0; i < 600; i++ {
			if i == 300 {
				t0 = d.Volume().NowMs()
			}
			l, b := rng.Int63n(file), byte(rng.Intn(250)+1)
			if err := d.WriteSync(l, [][]byte{block(4096, b)}); err != nil {
				t.Fatal(err)
			}
			want[l] = b
		}
		return d, dev, (d.Volume().NowMs() - t0) / 300, want
	}
	_, _, inPlace, _ := run(vld.PlaceInPlace, vld.Options{})
	d, dev, profiled, want := run(vld.PlaceEager, vld.Options{Head: p})
	if profiled > inPlace/2.5 {
		t.Errorf("profiled head: %.3f ms per update, in place %.3f: want at most 40 %%", profiled, inPlace)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []vld.Options{{}, {Head: p}} {
		d, err := logical.Open(keepOpen{dev}, o)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		for l, b := range want {
			if err := d.Read(l, buf); err != nil || buf[0] != b {
				t.Fatalf("block %d after reopen: %v, %d want %d", l, err, buf[0], b)
			}
		}
		if err := d.Check(); err != nil {
			t.Fatal(err)
		}
		d.Volume().Close()
	}
}
