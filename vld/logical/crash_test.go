package logical

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// TestLogicalWriteSyncCrash crashes a logical disk doing synchronous writes
// (WriteCommit: data and map entries in one request, or two) at every
// point the recorder can build, and checks that what recovers is the
// state acknowledged before the crash point or the one in flight.
func TestLogicalWriteSyncCrash(t *testing.T) {
	for _, seed := range testSeeds(t) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			per := 0 // odd seeds: sector pieces, four of them over the span
			if seed%2 != 0 {
				per = SectorPieceEntries
			}
			t.Logf("seed %d (replay with -vld.seed %d), %d map entries a piece (0: block pieces)", seed, seed, per)
			rng := rand.New(rand.NewSource(seed))
			base := device.NewMem(8 << 20)
			if err := FormatWith(base, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceEager, per); err != nil {
				t.Fatal(err)
			}
			crash := device.NewCrash(base)
			opts := vld.Options{CheckpointEvery: []int{3, 0}[rng.Intn(2)]}
			d, err := Open(keepOpen{crash}, opts)
			if err != nil {
				t.Fatal(err)
			}
			bs := d.BlockSize()
			span := int64(200)
			cur := map[int64]byte{}
			copyState := func() map[int64]byte {
				c := make(map[int64]byte, len(cur))
				for k, v := range cur {
					c[k] = v
				}
				return c
			}
			snaps := []crashSnap[map[int64]byte]{{crash.Flushes(), copyState()}}
			for i := 0; i < 60; i++ {
				l := rng.Int63n(span - 4)
				n := 1 + rng.Intn(3)
				data := make([][]byte, n)
				for j := range data {
					data[j] = make([]byte, bs)
					data[j][0] = byte(1 + rng.Intn(250))
					cur[l+int64(j)] = data[j][0]
				}
				if rng.Intn(4) == 0 {
					err = d.Write(l, data) // not synced: rides with the next sync
				} else {
					err = d.WriteSync(l, data)
					snaps = append(snaps, crashSnap[map[int64]byte]{crash.Flushes(), copyState()})
				}
				if err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
				if rng.Intn(4) == 0 {
					if err := d.Sync(); err != nil {
						t.Fatal(err)
					}
					snaps = append(snaps, crashSnap[map[int64]byte]{crash.Flushes(), copyState()})
				}
				if err := d.Check(); err != nil {
					t.Fatalf("write %d: %v", i, err)
				}
			}
			buf := make([]byte, bs)
			for _, st := range crash.States(rng, 3) {
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
		})
	}
}

func sameBytes(a, b map[int64]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
