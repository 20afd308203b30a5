package logical

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// TestLFSCleanerCrash crashes an LFS logical disk whose cleaner runs (on
// demand and in idle time) at every point the recorder can build, and
// checks that what recovers is the state acknowledged before the crash
// point or the one in flight: a cleaner move never loses a block.
func TestLFSCleanerCrash(t *testing.T) {
	for _, seed := range testSeeds(t) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay with -vld.seed %d)", seed, seed)
			rng := rand.New(rand.NewSource(seed))
			base := device.NewMem(8 << 20)
			if err := FormatPlaced(base, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceLFS); err != nil {
				t.Fatal(err)
			}
			crash := device.NewCrash(base)
			d, err := Open(keepOpen{crash}, vld.Options{CheckpointEvery: []int{16, 0}[rng.Intn(2)]})
			if err != nil {
				t.Fatal(err)
			}
			d.SetCleaner(CleanerConfig{Policy: CleanPolicy(rng.Intn(2))})
			bs := d.BlockSize()
			span := d.Blocks() * 7 / 10
			cur := map[int64]byte{}
			copyState := func() map[int64]byte {
				c := make(map[int64]byte, len(cur))
				for k, v := range cur {
					c[k] = v
				}
				return c
			}
			snaps := []crashSnap[map[int64]byte]{{crash.Flushes(), copyState()}}
			write := func(ls []int64, sync bool) {
				data := make([][]byte, len(ls))
				for i, l := range ls {
					data[i] = make([]byte, bs)
					data[i][0] = byte(1 + rng.Intn(250))
					cur[l] = data[i][0]
				}
				if err := d.WriteScattered(ls, data); err != nil {
					t.Fatal(err)
				}
				if !sync {
					return
				}
				if err := d.Sync(); err != nil {
					t.Fatal(err)
				}
				snaps = append(snaps, crashSnap[map[int64]byte]{crash.Flushes(), copyState()})
			}
			for l := int64(0); l < span; l += 64 {
				ls := make([]int64, 0, 64)
				for i := l; i < min(l+64, span); i++ {
					ls = append(ls, i)
				}
				write(ls, l+64 >= span)
			}
			// Crash states during the fill teach nothing new here.
			start := crash.Flushes()
			for r := 0; r < 24; r++ {
				ls := make([]int64, 64)
				for i := range ls {
					ls[i] = rng.Int63n(span)
				}
				write(ls, true)
				if r%8 == 7 {
					if _, err := d.CleanIdle(500); err != nil {
						t.Fatal(err)
					}
				}
				if err := d.Check(); err != nil {
					t.Fatalf("round %d: %v", r, err)
				}
			}
			if st := d.CleanerStats(); st.SegmentsCleaned == 0 {
				t.Fatalf("the cleaner never ran: %+v", st)
			}
			buf := make([]byte, bs)
			// Every crash state of the churn would take a minute: check a
			// random sample (the seed replays it).
			var states []device.State
			for _, st := range crash.States(rng, 1) {
				if st.Flushes >= start {
					states = append(states, st)
				}
			}
			total := len(states)
			rng.Shuffle(total, func(i, j int) { states[i], states[j] = states[j], states[i] })
			states = states[:min(total, 48)]
			for _, st := range states {
				r := openLogicalState(t, crash, st)
				got := map[int64]byte{}
				for l := int64(0); l < span; l++ {
					if err := r.Read(l, buf); err != nil {
						t.Fatalf("state %v: read %d: %v", st, l, err)
					}
					if buf[0] != 0 {
						got[l] = buf[0]
					}
				}
				ok := false
				for _, a := range ackedOrInFlight(snaps, st.Flushes) {
					ok = ok || sameBytes(got, a)
				}
				if !ok {
					t.Fatalf("state %v: recovered contents match no acknowledged or in-flight state", st)
				}
				if err := r.Check(); err != nil {
					t.Fatalf("state %v: %v", st, err)
				}
			}
			t.Logf("%d of %d crash states checked", len(states), total)
		})
	}
}
