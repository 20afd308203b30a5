package vld_test

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// fragmentedLogical writes the fraction fill of a 32 MiB logical disk (256
// tracks, a 64-track window) and updates it at random, synchronously,
// until the newest log entry lies on an extra track. It returns the disk,
// still open, and every block's contents.
func fragmentedLogical(t *testing.T, dev device.Device, rng *rand.Rand, fill float64) (*logical.Disk, [][]byte) {
	t.Helper()
	if err := logical.Format(dev, vld.FormatOptions{Model: testModel(t, "st19101")}); err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(keepOpen{dev}, vld.Options{CheckpointEvery: 1 << 20})
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
			want[i] = block(v.BlockSize(), byte(i))
			run = append(run, want[i])
		}
		if err := d.WriteSync(l, run); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50000; i++ {
		l := rng.Int63n(n)
		want[l] = block(v.BlockSize(), byte(rng.Intn(256)))
		if err := d.WriteSync(l, [][]byte{want[l]}); err != nil {
			t.Fatal(err)
		}
		if i > int(n) && vld.NewestOnExtraTrack(v) {
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
	r, err := logical.Open(keepOpen{device.MemFrom(dev.Bytes())}, vld.Options{})
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
			d, err := logical.Open(keepOpen{crash}, vld.Options{CheckpointEvery: 16})
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
			snaps := []crashSnap[int]{vld.Snap(crash.Flushes(), 0)}
			onExtra, firstOn := 0, 0
			for i := 0; i < 3000 && onExtra < 8 && (onExtra == 0 || i < 100); i++ {
				l := rng.Int63n(int64(len(want)))
				b := block(bs, byte(rng.Intn(256)))
				if err := d.WriteSync(l, [][]byte{b}); err != nil {
					t.Fatal(err)
				}
				ups = append(ups, update{l, b})
				snaps = append(snaps, vld.Snap(crash.Flushes(), len(ups)))
				if vld.NewestOnExtraTrack(d.Volume()) {
					if onExtra == 0 {
						firstOn = snaps[len(snaps)-2].Flushes()
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
