package vld

import (
	"testing"

	"github.com/vlfs/vlfs/vld/alloc"
)

// newestOnExtraTrack reports whether the newest entry since the checkpoint
// lies on one of its extra tracks, outside its window.
func newestOnExtraTrack(v *Volume) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	g := v.log
	var top *logEntry
	for _, e := range g.entries {
		if top == nil || e.ref.Seq > top.ref.Seq {
			top = e
		}
	}
	if top == nil || g.extra == nil {
		return false
	}
	nt := v.layout.NumTracks()
	t := v.layout.TrackOf(int64(top.ref.Addr))
	return g.extra[t] && !(alloc.Window{Start: int(g.ckpt.WindowStart), N: int(g.ckpt.WindowTracks)}).Contains(t, nt)
}

// TestAvoidEmptyPrefersHoles: with SetAvoidEmpty a write goes into a hole
// of a track in use, not onto an empty track, and empty tracks are used
// again once it is off.
func TestAvoidEmptyPrefersHoles(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	bs := v.BlockSize()
	var live []Addr
	write := func(n int) []Addr {
		data := make([][]byte, n)
		for i := range data {
			data[i] = block(bs, byte(len(live)+i))
		}
		addrs, err := v.WriteBlocks(data, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, addrs...)
		return addrs
	}
	write(40) // fills a fresh track to the threshold and starts another
	if err := v.Commit(map[uint32][]byte{0: {1}}); err != nil {
		t.Fatal(err)
	}
	_, empty0 := v.Space(nil)
	v.SetAvoidEmpty(true)
	for i := 0; i < 20; i++ {
		before, _ := v.Space(nil)
		a := write(1)[0]
		if tr := v.TrackOf(a); before[tr].Empty() {
			t.Fatalf("write %d went to empty track %d with avoid-empty on", i, tr)
		}
	}
	if _, e := v.Space(nil); e != empty0 {
		t.Fatalf("%d empty tracks after writing into holes, %d before", e, empty0)
	}
	v.SetAvoidEmpty(false)
	write(64)
	if _, e := v.Space(nil); e >= empty0 {
		t.Fatalf("%d empty tracks after 64 more blocks with avoid-empty off, %d before", e, empty0)
	}
	commitAndCheck(t, v, live, 2)
}

// TestAvoidEmptyFallsBack: with SetAvoidEmpty on and no hole left outside
// empty tracks, writes still succeed, on empty tracks.
func TestAvoidEmptyFallsBack(t *testing.T) {
	v, _ := newTestVolume(t, "st19101", 8<<20, Options{})
	v.SetAvoidEmpty(true)
	_, empty0 := v.Space(nil)
	var live []Addr
	// Far more than the holes of the tracks in use on a fresh volume.
	for i := 0; i < 8; i++ {
		data := make([][]byte, 64)
		for j := range data {
			data[j] = block(v.BlockSize(), byte(i*64+j))
		}
		addrs, err := v.WriteBlocks(data, WriteOpts{})
		if err != nil {
			t.Fatalf("write %d with avoid-empty on: %v", i, err)
		}
		live = append(live, addrs...)
	}
	if _, e := v.Space(nil); e >= empty0 {
		t.Fatalf("%d empty tracks after 512 blocks, %d before: nothing fell back to them", e, empty0)
	}
	commitAndCheck(t, v, live, 1)
}
