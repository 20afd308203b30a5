package vld_test

import (
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
)

// simulatedRun performs a fixed random workload and returns the final
// simulated clock and time breakdown.
func simulatedRun(t *testing.T, seed int64, o vld.Options) vld.Stats {
	d, _ := newTestLogical(t, "st19101", 32<<20, o)
	rng := rand.New(rand.NewSource(seed))
	data := [][]byte{make([]byte, d.BlockSize())}
	for i := 0; i < 200; i++ {
		if err := d.Write(rng.Int63n(d.Blocks()), data); err != nil {
			t.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	return d.Volume().Stats()
}

func TestVirtualClockIsDeterministic(t *testing.T) {
	a, b := simulatedRun(t, 5, vld.Options{}), simulatedRun(t, 5, vld.Options{})
	if a.SimNowMs != b.SimNowMs || a.Sim != b.Sim {
		t.Fatalf("same seed, different simulated time: %v vs %v", a.SimNowMs, b.SimNowMs)
	}
	if a.SimNowMs <= 0 || a.Sim.LocateMs <= 0 || a.Sim.TransferMs <= 0 || a.Sim.OverheadMs <= 0 {
		t.Fatalf("breakdown not charged: %+v", a.Sim)
	}
	if got := a.Sim.Total(); got > a.SimNowMs+1e-6 {
		t.Fatalf("breakdown %.3f ms exceeds the clock %.3f ms", got, a.SimNowMs)
	}
}

func TestRealClockSleeps(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps")
	}
	d, _ := newTestLogical(t, "hp97560", 16<<20, vld.Options{Clock: vld.ClockReal})
	data := [][]byte{make([]byte, d.BlockSize())}
	t0 := time.Now()
	for i := 0; i < 20; i++ {
		if err := d.Write(int64(i*37), data); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(t0)
	sim := d.Volume().Stats().Sim.Total()
	// Every request sleeps its service time, so the wall clock cannot run
	// behind the simulated service time.
	if wall < time.Duration(sim*float64(time.Millisecond)) {
		t.Fatalf("wall %v < simulated service %.2f ms", wall, sim)
	}
	if sim < 20*2.3 { // at least the controller overhead of 20 writes
		t.Fatalf("simulated service %.2f ms too small", sim)
	}
}

// TestRealClockIdleIsWallTime: Idle on the real-time clock does not move
// simulated time past the wall clock, so the next request does not sleep
// the idle time (it slept 2 s here before).
func TestRealClockIdleIsWallTime(t *testing.T) {
	d, _ := newTestLogical(t, "hp97560", 16<<20, vld.Options{Clock: vld.ClockReal})
	data := [][]byte{make([]byte, d.BlockSize())}
	d.Volume().Idle(2000)
	t0 := time.Now()
	if err := d.Write(0, data); err != nil {
		t.Fatal(err)
	}
	if wall := time.Since(t0); wall > 500*time.Millisecond {
		t.Fatalf("a write after Idle(2000) on the real-time clock took %v", wall)
	}
}
