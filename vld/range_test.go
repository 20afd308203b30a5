package vld

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// TestSimRangeDisk: range writes land inside their ranges, overlapping
// ones do not collide before a barrier, and data reads back.
func TestSimRangeDisk(t *testing.T) {
	m, err := disk.Preset("hpc2247a")
	if err != nil {
		t.Fatal(err)
	}
	l, err := disk.NewLayout(m, disk.SectorSize, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewSimRangeDisk(l, rangedisk.HRS)
	if err != nil {
		t.Fatal(err)
	}
	blk := func(b byte) [][]byte { return [][]byte{bytes.Repeat([]byte{b}, 512)} }
	seen := map[Addr]bool{}
	for i := range 4 {
		a, err := d.WriteRange(RangeWrite{Desc: rangedisk.Span(200, 204), Data: blk(byte(i))})
		if err != nil || a < 200 || a >= 204 || seen[a] {
			t.Fatalf("write %d: %d, %v", i, a, err)
		}
		seen[a] = true
	}
	if _, err := d.WriteRange(RangeWrite{Desc: rangedisk.Span(200, 204), Data: blk(9)}); !errors.Is(err, rangedisk.ErrNoTarget) {
		t.Fatalf("fifth write into a used-up range: %v", err)
	}
	if _, err := d.WriteRange(RangeWrite{Desc: rangedisk.Span(200, 204), Align: 3, Data: blk(9)}); !errors.Is(err, rangedisk.ErrBadAlign) {
		t.Fatalf("alignment 3: %v", err)
	}
	d.Barrier()
	a, err := d.WriteRange(RangeWrite{Desc: rangedisk.Span(200, 204), Data: blk(7)})
	if err != nil {
		t.Fatalf("after a barrier: %v", err)
	}
	got, err := d.ReadAt(a, 1)
	if err != nil || !bytes.Equal(got[0], blk(7)[0]) {
		t.Fatalf("read back at %d: %v", a, err)
	}
}
