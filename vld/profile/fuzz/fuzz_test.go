package fuzz

import (
	"context"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// seedProfile is a valid profile to seed FuzzDecode with: preset st19101
// measured once on a small grid (0..64 KiB x 0..6 ms) of the simulator.
func seedProfile(t testing.TB) *profile.Profile {
	t.Helper()
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	s, err := profile.NewSim(m, 4096, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Measure(context.Background(), s, profile.Config{
		Grid:        profile.Grid{SkipStepBytes: 4096, Skips: 17, ThinkStepMs: 0.5, Thinks: 13},
		Repetitions: 1, Seed: 7, Target: "sim:st19101", Tool: "test",
		Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FuzzDecode runs fuzzDecode (fuzz.go), the target its go-fuzz adapter
// FuzzGoDecode runs too.
func FuzzDecode(f *testing.F) {
	good, err := profile.Encode(seedProfile(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(`{"format":"vlfs-profile","version":1,"grid":{"skips":1,"thinks":1}}`))
	f.Add([]byte(`{"median_ms":[[1e999]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := fuzzDecode(data); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzIdentify runs fuzzIdentify (fuzz.go), the target its go-fuzz
// adapter FuzzGoIdentify runs too.
func FuzzIdentify(f *testing.F) {
	f.Add([]byte("VLDSUPER"))
	f.Add(make([]byte, 1100))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := fuzzIdentify(b); err != nil {
			t.Fatal(err)
		}
	})
}
