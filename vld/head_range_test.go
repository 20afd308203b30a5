package vld

import (
	"context"
	"testing"

	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vld/sched"
)

// TestRangeProfiledHeadTakesCheapestSkip: with a profiled head whose
// cheapest skip is 3 blocks after the last request (at think time 0), a
// chain whose exact continuation is taken goes, inside its range, to the
// start the profile prices lowest: 3 blocks after the last request's end.
func TestRangeProfiledHeadTakesCheapestSkip(t *testing.T) {
	p := synthProfile(3, 64, func(i, j int) float64 { return vee(3 + 3*i)(j) })
	v, _ := newTestVolume(t, "st19101", 64<<20, Options{Head: p, Batch: sched.Batch{}})
	bs := v.BlockSize()
	var live []Addr
	// Park the last request at a block well inside a track.
	for {
		a, err := v.WriteBlocks([][]byte{block(bs, 1)}, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, a[0])
		tr := v.layout.TrackOf(int64(a[0]))
		if int64(a[0])+8 < v.layout.TrackStart(tr)+int64(v.layout.TrackBlocks(tr)) && int64(a[0]) >= v.layout.TrackStart(tr)+2 {
			break
		}
	}
	e := int64(live[len(live)-1]) + 1 // the last request ended here, at v.m.now
	if v.m.last.end != e {
		t.Fatalf("last request ended at %d, want %d", v.m.last.end, e)
	}
	hint := Addr(e - 2) // its exact continuation, e-1, is the block just written
	got := writeRanged(t, v, newRangePolicy(v), [][]byte{block(bs, 2), block(bs, 3)}, []Addr{hint, hint})
	live = append(live, got...)
	if int64(got[0]) != e+3 || got[1] != got[0]+1 {
		t.Errorf("chain near %d placed at %v; the profile's cheapest start is %d", hint, got, e+3)
	}
	if err := v.Check(live); err != nil {
		t.Fatal(err)
	}
}

// TestRangeProfiledHeadKeepsFilesSequential is TestRangePlacementKeepsFilesSequential
// with a head profiled from the simulated HP C2247A as a black box: the
// ranges still keep the file sequential.
func TestRangeProfiledHeadKeepsFilesSequential(t *testing.T) {
	m := testModel(t, "hpc2247a")
	sim, err := profile.NewSim(m, 4096, 16<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Measure(context.Background(), sim, profile.Config{
		Grid: profile.Grid{SkipStepBytes: 4096, Skips: 49, ThinkStepMs: 0.5, Thinks: 25}, Repetitions: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	eager := interleavedFiles(t, false, Options{Head: p})
	ranged := interleavedFiles(t, true, Options{Head: p})
	t.Logf("profiled head, read back 128 blocks: eager %d requests %.2f ms, range %d requests %.2f ms (simulated)", eager.requests, eager.ms, ranged.requests, ranged.ms)
	if ranged.requests*2 > eager.requests || ranged.ms*2 > eager.ms {
		t.Fatalf("range placement: %+v, eager: %+v", ranged, eager)
	}
}
