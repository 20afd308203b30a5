package vld

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
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
	return g.extra[t] && !(window{start: int(g.ckpt.WindowStart), n: int(g.ckpt.WindowTracks)}).contains(t, nt)
}

// TestExtraLogTracksRecover: on a fragmented disk, synchronous updates put
// log entries on the checkpoint's extra tracks, outside its window. An
// unclean reopen must scan those too: the test stops right after the
// newest entry landed on one, so a scan of the window alone would recover
// an older root and lose the last update.
func TestExtraLogTracksRecover(t *testing.T) {
	seed := int64(1)
	dev := device.NewMem(32 << 20)
	if err := FormatLogical(dev, FormatOptions{Model: testModel(t, "st19101")}); err != nil {
		t.Fatal(err)
	}
	d, err := OpenLogical(keepOpen{dev}, Options{CheckpointEvery: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	v := d.Volume()
	n := d.Blocks() * 8 / 10
	want := make([][]byte, n)
	for l := int64(0); l < n; l += 16 {
		var run [][]byte
		for i := l; i < min(l+16, n); i++ {
			want[i] = block(v.bs, byte(i))
			run = append(run, want[i])
		}
		if err := d.WriteSync(l, run); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewSource(seed))
	landed := false
	for i := 0; i < 50000 && !landed; i++ {
		l := rng.Int63n(n)
		want[l] = block(v.bs, byte(rng.Intn(256)))
		if err := d.WriteSync(l, [][]byte{want[l]}); err != nil {
			t.Fatal(err)
		}
		landed = newestOnExtraTrack(v) && i > int(n)
	}
	if !landed {
		t.Fatalf("seed %d: no newest entry on an extra log track in 50000 updates", seed)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := OpenLogical(keepOpen{device.MemFrom(dev.Bytes())}, Options{})
	if err != nil {
		t.Fatalf("unclean reopen: %v", err)
	}
	if r.Volume().Recovery().ScannedBlocks == 0 {
		t.Fatal("reopen did not scan: it found a tail record")
	}
	buf := make([]byte, v.bs)
	for l := int64(0); l < n; l++ {
		if err := r.Read(l, buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want[l]) {
			t.Fatalf("seed %d: block %d lost its last update after an unclean reopen", seed, l)
		}
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}
