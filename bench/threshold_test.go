package bench

import (
	"math"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// TestThresholdMatchesModel checks Figure 2's claim on both disks. The
// paper presents eps (12) as a fit found "through approximations and
// empirical trials" that "works well", and uses (13) to pick the switch
// threshold. So the test holds the model to what it is for:
//   - the threshold minimizing the model is within one grid step of the
//     one minimizing the simulation, and the simulated latency there is
//     within 5 % of the simulated minimum;
//   - where at most a fifth of each track is written (threshold >= 0.8)
//     free space stays nearly random and the model is within 5 %;
//   - everywhere within 30 %: the fit's largest miss we measured is
//     about 24 % (ST19101, 256 units, threshold 0.3; HP97560 misses by at
//     most about 10 %), each point's sampling interval being under 2 %.
func TestThresholdMatchesModel(t *testing.T) {
	for _, name := range []string{"st19101", "hp97560"} {
		rep, err := Threshold(ThresholdConfig{Model: preset(t, name), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		simBest, modelBest := 0, 0
		sims := make([]float64, len(rep.Rows))
		for i, row := range rep.Rows {
			th := rowFloat(t, row, "threshold")
			sim, model := rowFloat(t, row, "simulated_ms"), rowFloat(t, row, "model_ms")
			sims[i] = sim
			t.Logf("%s threshold %.2f: sim %.5f model %.5f (%+.1f %%)", name, th, sim, model, diffPct(sim, model))
			tol := 0.30
			if th >= 0.8 {
				tol = 0.05
			}
			if math.Abs(sim-model) > tol*model {
				t.Errorf("%s threshold %.2f: sim %.5f vs model %.5f, beyond %.0f %%", name, th, sim, model, tol*100)
			}
			if sim < sims[simBest] {
				simBest = i
			}
			if model < rowFloat(t, rep.Rows[modelBest], "model_ms") {
				modelBest = i
			}
		}
		if d := simBest - modelBest; d < -1 || d > 1 {
			t.Errorf("%s: model's best threshold (row %d) is not next to the simulation's (row %d)", name, modelBest, simBest)
		}
		if sims[modelBest] > 1.05*sims[simBest] {
			t.Errorf("%s: at the model's best threshold the simulation costs %.5f, its minimum is %.5f", name, sims[modelBest], sims[simBest])
		}
	}
}

// TestThresholdOneWritePerTrack pins one end exactly: reserving all but
// one unit means one write per track, into an empty track (no rotational
// wait from a unit boundary), plus the switch.
func TestThresholdOneWritePerTrack(t *testing.T) {
	m := preset(t, "st19101")
	rep, err := Threshold(ThresholdConfig{Model: m, Seed: 3, Writes: 1000, Thresholds: []float64{0.999}})
	if err != nil {
		t.Fatal(err)
	}
	row := rep.Rows[0]
	if row["reserved_units"] != 255 || math.Abs(rowFloat(t, row, "simulated_ms")-m.HeadSwitchMs) > 1e-9 {
		t.Errorf("one write per track: %v", row)
	}
}

func TestThresholdBadConfig(t *testing.T) {
	for i, c := range []ThresholdConfig{
		{},
		{Model: preset(t, "hp97560"), Thresholds: []float64{-0.1}},
		{Model: preset(t, "hp97560"), Thresholds: []float64{1}},
		{Model: preset(t, "hp97560"), Writes: -1},
	} {
		if _, err := Threshold(c); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}

// TestThresholdRandomFreeSpace separates the simulator from the eps fit:
// when free space is re-randomized before every write (the assumption
// behind formula (11)), the same pricing machinery must reproduce (11)
// within its sampling noise. The remaining gap to (13) in the real run is
// then the non-randomness that eps (12) tries to describe.
func TestThresholdRandomFreeSpace(t *testing.T) {
	m := preset(t, "st19101")
	l, err := disk.NewLayout(m, disk.SectorSize, int64(m.Surfaces*256))
	if err != nil {
		t.Fatal(err)
	}
	f := newTrackFiller(l)
	rng := rand.New(rand.NewSource(4))
	for _, keep := range []int{0, 77, 128} {
		var acc meanCI
		for range 300 {
			total := f.switchMs
			for used := 0; used < 256-keep; used++ {
				for i, p := range rng.Perm(256) {
					f.r.used[p] = i < used
				}
				j := rng.Intn(256)
				start := (float64(rng.Intn(1000)) + l.BlockPhase(int64(j))) * l.RotationMs()
				total += l.PositionMs(disk.Head{}, start, int64(f.r.nextFree(0, j)), true)
			}
			acc.add(total / float64(256-keep))
		}
		want := disk.ThresholdModelRandom(256, keep, f.switchMs, l.BlockMs(0))
		if d := acc.mean() - want; d > acc.ci95()+0.01*want || -d > acc.ci95()+0.01*want {
			t.Errorf("keep %d: shuffled simulation %.5f ± %.5f, formula (11) %.5f", keep, acc.mean(), acc.ci95(), want)
		}
	}
}
