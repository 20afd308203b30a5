package rangedisk

import (
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
)

// layout512 is the HP C2247A in 512-byte blocks, the paper's disk.
func layout512(t testing.TB) *disk.Layout {
	t.Helper()
	m, err := disk.Preset("hpc2247a")
	if err != nil {
		t.Fatal(err)
	}
	l, err := disk.NewLayout(m, disk.SectorSize, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newDisk(t testing.TB, cfg Config) *Disk {
	t.Helper()
	d, err := New(layout512(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// bruteBest evaluates every target of a descriptor with PositionMs.
func bruteBest(l *disk.Layout, h disk.Head, startMs float64, runs []Extent, n, align int) (int64, float64) {
	best, cost := int64(-1), 1e18
	for _, s := range expandTargets(runs, n, align, 0) {
		if c := l.PositionMs(h, startMs, s, true); c < cost {
			best, cost = s, c
		}
	}
	return best, cost
}
