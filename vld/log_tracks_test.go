package vld

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld/alloc"
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
	return g.extra[t] && !(alloc.Window{Start: int(g.ckpt.WindowStart), N: int(g.ckpt.WindowTracks)}).Contains(t, nt)
}

// fragmentedLogical writes the fraction fill of a 32 MiB logical disk (256
// tracks, a 64-track window) and updates it at random, synchronously,
// until the newest log entry lies on an extra track. It returns the disk,
// still open, and every block's contents.
func fragmentedLogical(t *testing.T, dev device.Device, rng *rand.Rand, fill float64) (*LogicalDisk, [][]byte) {
	t.Helper()
	if err := FormatLogical(dev, FormatOptions{Model: testModel(t, "st19101")}); err != nil {
		t.Fatal(err)
	}
	d, err := OpenLogical(keepOpen{dev}, Options{CheckpointEvery: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	v := d.Volume()
	v.SetExtraLogTracks(true) // as a compactor would
	n := int64(float64(d.Blocks()) * fill)
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
	for i := 0; i < 50000; i++ {
		l := rng.Int63n(n)
		want[l] = block(v.bs, byte(rng.Intn(256)))
		if err := d.WriteSync(l, [][]byte{want[l]}); err != nil {
			t.Fatal(err)
		}
		if i > int(n) && newestOnExtraTrack(v) {
			return d, want
		}
	}
	t.Fatal("no newest entry on an extra log track in 50000 updates")
	return nil, nil
}

// TestExtraLogTracksRecover: on a fragmented disk, synchronous updates put
// log entries on the checkpoint's extra tracks, outside its window. An
// unclean reopen must scan those too: the test stops right after the
// newest entry landed on one, so a scan of the window alone would recover
// an older root and lose the last update.
func TestExtraLogTracksRecover(t *testing.T) {
	dev := device.NewMem(32 << 20)
	d, want := fragmentedLogical(t, dev, rand.New(rand.NewSource(1)), 0.8)
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
	buf := make([]byte, r.BlockSize())
	for l := range want {
		if err := r.Read(int64(l), buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, want[l]) {
			t.Fatalf("block %d lost its last update after an unclean reopen", l)
		}
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestExtraLogTracksCrash crashes a fragmented logical disk whose
// synchronous writes put entries on extra log tracks, at every point the
// recorder can build, and checks that what recovers is the state
// acknowledged before the crash point or the one in flight. A checkpoint
// every 16 entries puts crashes around checkpoints that change the extra
// tracks too.
func TestExtraLogTracksCrash(t *testing.T) {
	for _, seed := range testSeeds(t) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay with -vld.seed %d)", seed, seed)
			rng := rand.New(rand.NewSource(seed))
			mem := device.NewMem(32 << 20)
			// 60 % full: empty tracks stay common, so entries often follow
			// the data onto listed ones.
			d, want := fragmentedLogical(t, mem, rng, 0.6)
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			crash := device.NewCrash(device.MemFrom(mem.Bytes()))
			d, err := OpenLogical(keepOpen{crash}, Options{CheckpointEvery: 16})
			if err != nil {
				t.Fatal(err)
			}
			d.Volume().SetExtraLogTracks(true)
			bs := d.BlockSize()
			// Snapshot i is the contents after the first i updates: a
			// count, so that a long run costs no copies of the state.
			type update struct {
				l int64
				b []byte
			}
			var ups []update
			snaps := []crashSnap[int]{{crash.Flushes(), 0}}
			onExtra, firstOn := 0, 0
			for i := 0; i < 3000 && onExtra < 8 && (onExtra == 0 || i < 100); i++ {
				l := rng.Int63n(int64(len(want)))
				b := block(bs, byte(rng.Intn(256)))
				if err := d.WriteSync(l, [][]byte{b}); err != nil {
					t.Fatal(err)
				}
				ups = append(ups, update{l, b})
				snaps = append(snaps, crashSnap[int]{crash.Flushes(), len(ups)})
				if newestOnExtraTrack(d.Volume()) {
					if onExtra == 0 {
						firstOn = snaps[len(snaps)-2].flushes
					}
					onExtra++
				}
			}
			if onExtra == 0 {
				t.Fatal("no update put its entry on an extra log track in 3000")
			}
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
			// The states from just before the first update whose entry went
			// to an extra track on: earlier ones are the window's alone.
			var states []device.State
			for _, st := range crash.States(rng, 2) {
				if st.Flushes >= firstOn {
					states = append(states, st)
				}
			}
			t.Logf("%d updates with the newest entry on an extra track, %d checkpoints, %d crash states from flush %d on", onExtra, d.Volume().Stats().Checkpoints, len(states), firstOn)
			buf := make([]byte, bs)
			for _, st := range states {
				r := openLogicalState(t, crash, st)
				matches := func(n int) bool {
					exp := map[int64][]byte{}
					for _, u := range ups {
						exp[u.l] = want[u.l]
					}
					for _, u := range ups[:n] {
						exp[u.l] = u.b
					}
					for l, b := range exp {
						if err := r.Read(l, buf); err != nil {
							t.Fatalf("state %v: read %d: %v", st, l, err)
						}
						if !bytes.Equal(buf, b) {
							return false
						}
					}
					return true
				}
				ok := false
				for _, n := range ackedOrInFlight(snaps, st.Flushes) {
					ok = ok || matches(n)
				}
				if !ok {
					t.Fatalf("state %v: recovered contents match no acknowledged or in-flight state", st)
				}
				if err := r.Check(); err != nil {
					t.Fatalf("state %v: %v", st, err)
				}
			}
		})
	}
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
