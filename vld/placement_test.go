package vld

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
)

// newPlacedVolume formats a memory volume with placement p, opens and
// starts it; Check runs at the end with the client's live blocks.
func newPlacedVolume(t *testing.T, p Placement, size int64) (*Volume, *device.Mem, map[Addr]bool) {
	t.Helper()
	dev := device.NewMem(size)
	if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test", Placement: p}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(keepOpen{dev}, Options{Batch: sched.Batch{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	live := map[Addr]bool{}
	t.Cleanup(func() {
		as := make([]Addr, 0, len(live))
		for a := range live {
			as = append(as, a)
		}
		if err := v.Check(as); err != nil {
			t.Error(err)
		}
	})
	return v, dev, live
}

func TestParsePlacement(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Placement
		ok   bool
	}{{"", PlaceEager, true}, {"eager", PlaceEager, true}, {"inplace", PlaceInPlace, true}, {"lfs", PlaceLFS, true}, {"range", PlaceRange, true}, {"log", 0, false}} {
		p, err := ParsePlacement(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (p != tc.want || p.String() != map[bool]string{true: tc.in, false: "eager"}[tc.in != ""])) {
			t.Errorf("ParsePlacement(%q) = %v, %v", tc.in, p, err)
		}
		if !tc.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("ParsePlacement(%q): %v, want ErrInvalid", tc.in, err)
		}
	}
}

func TestPlacementKeptInSuperblock(t *testing.T) {
	for _, p := range []Placement{PlaceEager, PlaceInPlace, PlaceLFS, PlaceRange} {
		v, dev, _ := newPlacedVolume(t, p, 64<<20)
		if v.Placement() != p {
			t.Fatalf("open: placement %v, formatted %v", v.Placement(), p)
		}
		v2, err := Open(keepOpen{dev}, Options{ReadOnly: true})
		if err != nil || v2.Placement() != p {
			t.Fatalf("reopen: %v, %v; want %v", v2.Placement(), err, p)
		}
	}
}

func TestInPlaceRewritesOverOldCopy(t *testing.T) {
	v, dev, live := newPlacedVolume(t, PlaceInPlace, 64<<20)
	bs := v.BlockSize()
	data := [][]byte{block(bs, 1), block(bs, 2), block(bs, 3)}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range addrs { // first free blocks, in address order
		if a != Addr(4+i) {
			t.Fatalf("new blocks at %v, want 4, 5, 6", addrs)
		}
		live[a] = true
	}
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	nw := [][]byte{block(bs, 9), block(bs, 8)}
	o := WriteOpts{Near: []Addr{addrs[1], addrs[2]}, Replaces: []bool{true, false}}
	got, err := v.WriteBlocks(nw, o)
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != addrs[1] {
		t.Fatalf("replacing block went to %d, want its home %d", got[0], addrs[1])
	}
	if got[1] <= addrs[2] || v.alloc.IsUsed(int64(got[1])) == false {
		t.Fatalf("new block near %d went to %d", addrs[2], got[1])
	}
	live[got[1]] = true
	buf := make([]byte, bs)
	if err := v.ReadBlock(addrs[1], buf); err != nil || !bytes.Equal(buf, nw[0]) {
		t.Fatalf("home block not rewritten: %v", err)
	}
	if err := v.Commit(map[uint32][]byte{0: {2}}); err != nil {
		t.Fatal(err)
	}
	_ = dev
}

func TestLFSAppendsAndKeepsPartialSegment(t *testing.T) {
	v, _, live := newPlacedVolume(t, PlaceLFS, 64<<20)
	bs := v.BlockSize()
	seg := v.place.lfs.SegmentBlocks()
	write := func(n int) []Addr {
		t.Helper()
		data := make([][]byte, n)
		for i := range data {
			data[i] = block(bs, byte(i))
		}
		a, err := v.WriteBlocks(data, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range a {
			live[x] = true
		}
		return a
	}
	a := write(8)
	if int64(a[0])%seg != 0 {
		t.Fatalf("first block %d not at a segment start (segment %d blocks)", a[0], seg)
	}
	for i := 1; i < len(a); i++ {
		if a[i] != a[i-1]+1 {
			t.Fatalf("not contiguous: %v", a)
		}
	}
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	b := write(4)
	st := v.LFSStats()
	if int64(b[0])/seg != int64(a[0])/seg || st.PartialFlushes != 1 || st.RewrittenBlocks == 0 {
		t.Fatalf("after a partial flush: next block %d (first %d), stats %+v", b[0], a[0], st)
	}
	// Fill past the threshold, flush: the next write opens a new segment
	// (the commit's entries may already have: its covers did not fit, so
	// it flushed the data first).
	write(int(seg * 3 / 4))
	if err := v.Commit(map[uint32][]byte{0: {2}}); err != nil {
		t.Fatal(err)
	}
	c := write(1)
	if int64(c[0])/seg == int64(a[0])/seg || v.LFSStats().SegmentsOpened != 2 {
		t.Fatalf("after a full flush: block %d, first segment %d", c[0], int64(a[0])/seg)
	}
}
