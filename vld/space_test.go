package vld

import (
	"bytes"
	"errors"
	"testing"
)

func TestSpaceAgreesWithFreeBlocks(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	bs := v.BlockSize()
	data := make([][]byte, 40)
	for i := range data {
		data[i] = block(bs, byte(i))
	}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	sp, empty := v.Space(nil)
	if len(sp) != v.NumTracks() {
		t.Fatalf("%d tracks reported, volume has %d", len(sp), v.NumTracks())
	}
	var free int64
	emptyCount := 0
	for tr, s := range sp {
		free += int64(s.Free)
		if s.Empty() {
			emptyCount++
		}
		used, err := v.UsedOnTrack(tr)
		if err != nil {
			t.Fatal(err)
		}
		if int32(len(used)) != s.Capacity-s.Free {
			t.Fatalf("track %d: %d used listed, %d counted", tr, len(used), s.Capacity-s.Free)
		}
	}
	if free != v.Stats().FreeBlocks || empty != emptyCount || empty != v.EmptyTracks() {
		t.Fatalf("free %d vs %d, empty %d vs %d vs %d", free, v.Stats().FreeBlocks, empty, emptyCount, v.EmptyTracks())
	}
	used, _ := v.UsedOnTrack(v.TrackOf(addrs[0]))
	found := false
	for _, a := range used {
		found = found || a == addrs[0]
	}
	if !found {
		t.Fatalf("block %d missing from its track's used list %v", addrs[0], used)
	}
	if _, err := v.UsedOnTrack(v.NumTracks()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("track out of range: %v", err)
	}
	commitAndCheck(t, v, addrs, 1)
}

// TestReadRunIsOneRequest: right after the write the head has passed the
// run, so no split pays (TestReadRunStartsWhereTheHeadLands) and the run
// is one request.
func TestReadRunIsOneRequest(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	bs := v.BlockSize()
	data := [][]byte{block(bs, 1), block(bs, 2), block(bs, 3)}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if addrs[2] != addrs[0]+2 {
		t.Skipf("blocks not contiguous: %v", addrs)
	}
	bufs := [][]byte{make([]byte, bs), make([]byte, bs), make([]byte, bs)}
	before := v.Stats()
	if err := v.ReadRun(addrs[0], bufs); err != nil {
		t.Fatal(err)
	}
	after := v.Stats()
	if after.Reads-before.Reads != 1 || after.BlocksRead-before.BlocksRead != 3 {
		t.Fatalf("%d requests for %d blocks, want 1 for 3", after.Reads-before.Reads, after.BlocksRead-before.BlocksRead)
	}
	for i := range data {
		if !bytes.Equal(bufs[i], data[i]) {
			t.Fatalf("block %d differs", i)
		}
	}
	if err := v.ReadRun(Addr(v.NumBlocks()-1), bufs); !errors.Is(err, ErrInvalid) {
		t.Fatalf("run past the end: %v", err)
	}
	commitAndCheck(t, v, addrs, 1)
}

// TestReadRunStartsWhereTheHeadLands: a read of a whole track's worth of
// blocks, issued at many rotational positions, never costs more simulated
// time than one request would, and where the head lands inside the run it
// is read from there in two requests and costs less (no wait for the first
// block). The data comes back in order either way.
func TestReadRunStartsWhereTheHeadLands(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	bs := v.BlockSize()
	n := 24
	var data [][]byte
	for i := 0; i < n; i++ {
		data = append(data, block(bs, byte(i)))
	}
	addrs, err := v.WriteBlocks(data, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range addrs {
		if addrs[i] != addrs[0]+Addr(i) || v.TrackOf(addrs[i]) != v.TrackOf(addrs[0]) {
			t.Skipf("blocks not one run on one track: %v", addrs)
		}
	}
	rot := v.layout.Model().RotationMs()
	split, saved := 0, 0.0
	for k := 0; k < 40; k++ {
		v.Idle(rot * float64(k) / 40)
		v.mu.Lock()
		one, _ := v.layout.Service(v.m.head, v.m.now, int64(addrs[0]), n, false)
		v.mu.Unlock()
		bufs := make([][]byte, n)
		for i := range bufs {
			bufs[i] = make([]byte, bs)
		}
		before := v.Stats()
		if err := v.ReadRun(addrs[0], bufs); err != nil {
			t.Fatal(err)
		}
		after := v.Stats()
		ms := after.Sim.Total() - before.Sim.Total()
		if ms > one.TotalMs()+1e-9 {
			t.Fatalf("position %d: %.3f ms, one request %.3f ms", k, ms, one.TotalMs())
		}
		switch reqs := after.Reads - before.Reads; reqs {
		case 1:
		case 2:
			split++
			saved += one.TotalMs() - ms
			if ms >= one.TotalMs() {
				t.Fatalf("position %d: split read %.3f ms, one request %.3f ms", k, ms, one.TotalMs())
			}
		default:
			t.Fatalf("position %d: %d requests", k, reqs)
		}
		for i := range data {
			if !bytes.Equal(bufs[i], data[i]) {
				t.Fatalf("position %d: block %d differs", k, i)
			}
		}
	}
	if split == 0 {
		t.Fatal("no read was split: the head never landed inside the run")
	}
	t.Logf("%d of 40 reads split, saving %.2f ms each on average (rotation %.2f ms)", split, saved/float64(split), rot)
}

// TestPlugHolesOnlyFillsHoles writes into a volume whose data occupies a
// few tracks partly: hole-plugging writes land only on those tracks, never
// on an empty track nor on the one to avoid, and respect MaxFree.
func TestPlugHolesOnlyFillsHoles(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	bs := v.BlockSize()
	var live []Addr
	for i := 0; i < 3; i++ {
		a, err := v.WriteBlocks([][]byte{block(bs, 1), block(bs, 2), block(bs, 3), block(bs, 4)}, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, a...)
		v.Idle(1.7) // the next write lands elsewhere on the track, or on another
	}
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	before, _ := v.Space(nil)
	avoid := v.TrackOf(live[0])
	data := make([][]byte, 10)
	for i := range data {
		data[i] = block(bs, byte(10+i))
	}
	addrs, err := v.PlugHoles(data, HoleOpts{Avoid: avoid})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range addrs {
		tr := v.TrackOf(a)
		if before[tr].Empty() || tr == avoid {
			t.Fatalf("block %d went to track %d (empty before: %v, avoided: %v)", i, tr, before[tr].Empty(), tr == avoid)
		}
		buf := make([]byte, bs)
		if err := v.ReadBlock(a, buf); err != nil || !bytes.Equal(buf, data[i]) {
			t.Fatalf("block %d at %d does not read back: %v", i, a, err)
		}
	}
	live = append(live, addrs...)
	// Allow only tracks with fewer free blocks than any holds: nothing is
	// written.
	sp, _ := v.Space(nil)
	minFree := int32(1 << 30)
	for _, s := range sp {
		if s.Free > 0 && !s.Empty() {
			minFree = min(minFree, s.Free)
		}
	}
	if minFree < 2 {
		t.Fatalf("a track has %d free blocks: the test needs at least 2", minFree)
	}
	free := v.FreeBlocks()
	if _, err := v.PlugHoles(data[:1], HoleOpts{Avoid: -1, MaxFree: minFree - 1}); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("no hole allowed: %v", err)
	}
	if v.FreeBlocks() != free {
		t.Fatalf("a failed hole-plugging write used space: %d -> %d free", free, v.FreeBlocks())
	}
	commitAndCheck(t, v, live, 2)
}
