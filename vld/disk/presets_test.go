package disk

import (
	"math"
	"testing"
)

// TestST4000NM0023 checks the zoned 4 TB preset against the figures of
// docs/disk-model.md: the published geometry exactly, the capacity of a
// 4 TB drive within the rounding to whole 4 KiB blocks, the sustained
// rates the zones and skews were derived from, and the seek figures.
func TestST4000NM0023(t *testing.T) {
	m := mustPreset(t, "st4000nm0023")
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Cylinders != 320800 || m.Surfaces != 10 || m.RPM != 7200 || len(m.Zones) != 16 {
		t.Fatalf("geometry: %d cylinders, %d surfaces, %v RPM, %d zones", m.Cylinders, m.Surfaces, m.RPM, len(m.Zones))
	}
	for i, z := range m.Zones {
		if z.SectorsPerTrack%8 != 0 {
			t.Errorf("zone %d: %d sectors per track, not whole 4 KiB blocks", i, z.SectorsPerTrack)
		}
		if i > 0 && z.SectorsPerTrack >= m.Zones[i-1].SectorsPerTrack {
			t.Errorf("zone %d: %d sectors per track, not fewer than the zone outside it", i, z.SectorsPerTrack)
		}
	}
	// 4 TB by the IDEMA LBA formula: 97,696,368 + 1,953,504 x (4000 - 50).
	const sectors4TB = 7814037168
	got := m.CapacityBytes() / SectorSize
	if got < sectors4TB || float64(got-sectors4TB) > 1e-4*sectors4TB {
		t.Errorf("capacity %d sectors; want at least %d and within 0.01 %%", got, sectors4TB)
	}
	// A sequential transfer pays one skew per track: the outer and inner
	// zones must give the manual's 175 and 83 MB/s.
	for _, c := range []struct {
		zone int
		mbs  float64
	}{{0, 175}, {15, 83}} {
		z := m.Zones[c.zone]
		trackMs := m.RotationMs() * float64(z.SectorsPerTrack+z.TrackSkew) / float64(z.SectorsPerTrack)
		rate := float64(z.SectorsPerTrack*SectorSize) / trackMs / 1000
		if math.Abs(rate-c.mbs) > 0.01*c.mbs {
			t.Errorf("zone %d: sustained %.1f MB/s, want %v within 1 %%", c.zone, rate, c.mbs)
		}
		if skewMs := m.RotationMs() * float64(z.TrackSkew) / float64(z.SectorsPerTrack); skewMs < m.HeadSwitchMs+m.WriteSettleMs {
			t.Errorf("zone %d: skew %.3f ms does not cover a head switch and write settle", c.zone, skewMs)
		}
	}
	mean, _ := SeekStats(m)
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"single track", m.SeekMs(1), 0.23}, {"full stroke", m.SeekMs(m.Cylinders - 1), 17.06}, {"average", mean, 7.5}} {
		if math.Abs(c.got-c.want) > 0.01 {
			t.Errorf("%s seek %.4f ms, want %v", c.what, c.got, c.want)
		}
	}
}

// TestST4000NM0023Layout: the full layout and a 1 TiB prefix of it.
func TestST4000NM0023Layout(t *testing.T) {
	m := mustPreset(t, "st4000nm0023")
	full := mustLayout(t, m, 4096, 0)
	if want := m.CapacityBytes() / 4096; full.NumBlocks() != want || full.NumTracks() != 320800*10 {
		t.Errorf("full layout: %d blocks, %d tracks; want %d, %d", full.NumBlocks(), full.NumTracks(), want, 320800*10)
	}
	tib := mustLayout(t, m, 4096, 1<<28)
	if tib.NumBlocks() != 1<<28 {
		t.Fatalf("1 TiB prefix: %d blocks", tib.NumBlocks())
	}
	last := tib.NumTracks() - 1
	if tib.TrackStart(last)+int64(tib.TrackBlocks(last)) != 1<<28 || tib.TrackOf(1<<28-1) != last {
		t.Errorf("1 TiB prefix: last track %d starts at %d with %d blocks", last, tib.TrackStart(last), tib.TrackBlocks(last))
	}
}
