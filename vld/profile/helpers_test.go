package profile

import (
	"context"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
)

// smallGrid is a grid small enough for tests: 0..64 KiB x 0..6 ms.
var smallGrid = Grid{SkipStepBytes: 4096, Skips: 17, ThinkStepMs: 0.5, Thinks: 13}

// fixedNow keeps the metadata date stable.
func fixedNow() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }

// simProfile measures a preset with smallGrid.
func simProfile(t testing.TB, preset string, reps int) *Profile {
	t.Helper()
	m, err := disk.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSim(m, 4096, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Measure(context.Background(), s, Config{Grid: smallGrid, Repetitions: reps, Seed: 7, Target: "sim:" + preset, Tool: "test", Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
