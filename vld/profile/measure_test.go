package profile

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestSimProfileShape checks the profile of a known disk against its
// mechanics, which the measurement never sees: on an ST19101 (6 ms per
// revolution, 0.1 ms controller overhead, 0.1875 ms per 4 KiB block) a
// write right after the previous one to the next block has just missed it
// (a revolution), one block further on is nearly free, and the cheapest
// skip moves on with the think time by about one block per 0.1875 ms.
func TestSimProfileShape(t *testing.T) {
	p := simProfile(t, "st19101", 5)
	r0 := p.Row(0)
	if r0.SeqMs < 5.5 || r0.SeqMs > 6.5 {
		t.Errorf("think 0, skip 0: %.3f ms, want about a revolution (6 ms)", r0.SeqMs)
	}
	if r0.BestSkipBytes != 4096 || r0.BestMs > 0.5 {
		t.Errorf("think 0: cheapest skip %d bytes at %.3f ms, want 4096 at < 0.5 ms", r0.BestSkipBytes, r0.BestMs)
	}
	for _, think := range []float64{0.5, 1, 1.5} {
		r := p.Row(p.Grid.ThinkIndex(think))
		want := (think + 0.1) / 0.1875 * 4096 // blocks passing under the head meanwhile
		if math.Abs(float64(r.BestSkipBytes)-want) > 2*4096 {
			t.Errorf("think %.1f ms: cheapest skip %d bytes, want about %.0f", think, r.BestSkipBytes, want)
		}
		if r.BestMs > 1 {
			t.Errorf("think %.1f ms: cheapest write %.3f ms, want < 1", think, r.BestMs)
		}
	}
	if s := p.Summarize(); s.Gain < 0.5 || s.Flat {
		t.Errorf("gain %.2f, want a strongly position-dependent profile (> 0.5)", s.Gain)
	}
}

func TestMeasureDeterministic(t *testing.T) {
	a, b := simProfile(t, "hpc2247a", 2), simProfile(t, "hpc2247a", 2)
	for i := range a.MeanMs {
		for j := range a.MeanMs[i] {
			if a.MeanMs[i][j] != b.MeanMs[i][j] {
				t.Fatalf("same seed, cell %d,%d: %v != %v", i, j, a.MeanMs[i][j], b.MeanMs[i][j])
			}
		}
	}
}

// recorder is a Target that remembers every write.
type recorder struct {
	size   int64
	writes [][2]int64
	waited float64
}

func (r *recorder) Size() int64 { return r.size }
func (r *recorder) Write(off int64, buf []byte) (float64, error) {
	r.writes = append(r.writes, [2]int64{off, int64(len(buf))})
	return float64(off%7) + 1, nil
}
func (r *recorder) Wait(ms float64)  { r.waited += ms }
func (r *recorder) Info() TargetInfo { return TargetInfo{Kind: KindFile, Clock: ClockWall} }

func TestMeasureStaysInRegionAndFollowsMethod(t *testing.T) {
	r := &recorder{size: 1 << 20}
	g := Grid{SkipStepBytes: 8192, Skips: 9, ThinkStepMs: 1, Thinks: 3}
	var calls int
	p, err := Measure(context.Background(), r, Config{Grid: g, Repetitions: 4, Progress: func(done, total int) {
		calls++
		if done > total {
			t.Fatalf("progress %d of %d", done, total)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n := g.Cells() * 4; len(r.writes) != 2*n || calls != n {
		t.Fatalf("%d writes, %d progress calls for %d samples", len(r.writes), calls, n)
	}
	if want := 4 * float64(g.Skips) * (0 + 1 + 2); r.waited != want {
		t.Errorf("waited %v ms, want %v", r.waited, want)
	}
	for k := 0; k < len(r.writes); k += 2 {
		first, second := r.writes[k], r.writes[k+1]
		for _, w := range [][2]int64{first, second} {
			if w[0] < 0 || w[0]+w[1] > r.size || w[0]%4096 != 0 || w[1] != 4096 {
				t.Fatalf("write %v outside the region or misaligned", w)
			}
		}
		if skip := second[0] - first[0] - 4096; skip < 0 || skip > g.MaxSkipBytes() || skip%8192 != 0 {
			t.Fatalf("skip %d not on the grid", skip)
		}
	}
	if p.Meta.Clock != ClockWall || p.Meta.Repetitions != 4 || p.Meta.RegionBytes != 1<<20 {
		t.Errorf("meta %+v", p.Meta)
	}
}

func TestMeasureRejects(t *testing.T) {
	m, _ := disk.Preset("st19101")
	sim, err := NewSim(m, 4096, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		c    Config
		want error
	}{
		{"region too small for skips", Config{Grid: Grid{SkipStepBytes: 4096, Skips: 300, ThinkStepMs: 1, Thinks: 1}}, ErrInvalid},
		{"bad grid", Config{Grid: Grid{SkipStepBytes: 100, Skips: 2, Thinks: 1}}, ErrInvalid},
		{"bad block", Config{Grid: smallGrid, BlockBytes: 1000}, ErrInvalid},
		{"negative reps", Config{Grid: smallGrid, Repetitions: -1}, ErrInvalid},
	}
	for _, c := range cases {
		if _, err := Measure(context.Background(), sim, c.c); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Measure(ctx, sim, Config{Grid: smallGrid}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	if _, err := sim.Write(1<<20-4096, make([]byte, 8192)); !errors.Is(err, ErrOutside) {
		t.Errorf("write past the region: %v", err)
	}
	if _, err := sim.Write(100, make([]byte, 4096)); !errors.Is(err, ErrInvalid) {
		t.Errorf("misaligned sim write: %v", err)
	}
}
