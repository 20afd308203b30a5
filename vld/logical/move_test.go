package logical

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// fillLogical writes n random logical blocks of distinct contents (first
// byte 1..250 plus the logical number) with random think time, synced, and
// returns the reference contents.
func fillLogical(t *testing.T, d *Disk, rng *rand.Rand, n int, span int64) map[int64][]byte {
	t.Helper()
	ref := map[int64][]byte{}
	bs := d.BlockSize()
	for i := 0; i < n; i++ {
		l := rng.Int63n(span)
		b := make([]byte, bs)
		rng.Read(b[:32])
		ref[l] = b
		if err := d.WriteSync(l, [][]byte{b}); err != nil {
			t.Fatal(err)
		}
		d.Volume().Idle(rng.Float64() * 2)
	}
	return ref
}

func checkContents(t *testing.T, d *Disk, ref map[int64][]byte) {
	t.Helper()
	buf := make([]byte, d.BlockSize())
	for l, want := range ref {
		if err := d.Read(l, buf); err != nil {
			t.Fatalf("read %d: %v", l, err)
		}
		if !bytes.Equal(buf, want) {
			t.Fatalf("logical block %d changed", l)
		}
	}
}

// busiestTrack is a track with the most movable blocks.
func busiestTrack(t *testing.T, d *Disk) (int, []Movable) {
	t.Helper()
	best, bestLive := -1, []Movable(nil)
	for tr := 0; tr < d.Volume().NumTracks(); tr++ {
		live, pinned, err := d.TrackLive(tr)
		if err != nil {
			t.Fatal(err)
		}
		if pinned == 0 && len(live) > len(bestLive) {
			best, bestLive = tr, live
		}
	}
	if best < 0 {
		t.Fatal("no track with movable blocks")
	}
	return best, bestLive
}

func TestRelocateEmptiesATrack(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	d, dev := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	ref := fillLogical(t, d, rng, 300, 400)
	tr, live := busiestTrack(t, d)
	if err := d.Prefetch(live[:len(live)/2]); err != nil {
		t.Fatal(err)
	}
	reads := d.Volume().Stats().Reads
	moved := 0
	for i := 0; i < len(live); i += 3 {
		n, err := d.Relocate(live[i:min(i+3, len(live))], vld.HoleOpts{Avoid: tr})
		if err != nil {
			t.Fatal(err)
		}
		moved += n
		if err := d.Check(); err != nil {
			t.Fatalf("after moving %d: %v", moved, err)
		}
	}
	if moved != len(live) || d.MovedCount() != int64(moved) {
		t.Fatalf("moved %d (count %d) of %d", moved, d.MovedCount(), len(live))
	}
	// Prefetched blocks were not read again: one read per step that had
	// blocks not prefetched.
	if got := d.Volume().Stats().Reads - reads; got > int64((len(live)+2)/3) {
		t.Fatalf("%d reads for %d moves", got, len(live))
	}
	if left, pinned, _ := d.TrackLive(tr); len(left) != 0 || pinned != 0 {
		t.Fatalf("track %d still holds %d movable and %d pinned blocks", tr, len(left), pinned)
	}
	sp, _ := d.Volume().Space(nil)
	if !sp[tr].Empty() {
		t.Fatalf("track %d not empty after moving all its blocks: %+v", tr, sp[tr])
	}
	checkContents(t, d, ref)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, r, ref)
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestRelocateSkipsStale: a block rewritten or trimmed after it was listed
// is not moved, and a stale prefetched copy is never written back.
func TestRelocateSkipsStale(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	d, _ := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	ref := fillLogical(t, d, rng, 200, 300)
	tr, live := busiestTrack(t, d)
	if len(live) < 3 {
		t.Skipf("track %d holds only %d blocks", tr, len(live))
	}
	if err := d.Prefetch(live); err != nil {
		t.Fatal(err)
	}
	nb := make([]byte, d.BlockSize())
	nb[0] = 0xEE
	if err := d.WriteSync(live[0].Logical, [][]byte{nb}); err != nil {
		t.Fatal(err)
	}
	ref[live[0].Logical] = nb
	if err := d.Trim(live[1].Logical, 1); err != nil {
		t.Fatal(err)
	}
	delete(ref, live[1].Logical)
	n, err := d.Relocate(live, vld.HoleOpts{Avoid: tr})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(live)-2 {
		t.Fatalf("moved %d, want %d", n, len(live)-2)
	}
	checkContents(t, d, ref)
	buf := make([]byte, d.BlockSize())
	if err := d.Read(live[1].Logical, buf); err != nil || !bytes.Equal(buf, make([]byte, len(buf))) {
		t.Fatalf("trimmed block came back: %v", err)
	}
}

func TestRelocateRefusesInPlace(t *testing.T) {
	dev := device.NewMem(4 << 20)
	if err := FormatPlaced(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceInPlace); err != nil {
		t.Fatal(err)
	}
	d, err := Open(dev, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, _, err := d.TrackLive(1); !errors.Is(err, vld.ErrInvalid) {
		t.Fatalf("TrackLive on an in-place disk: %v", err)
	}
	if _, err := d.Relocate([]Movable{{Logical: 0, Addr: 4}}, vld.HoleOpts{Avoid: -1}); !errors.Is(err, vld.ErrInvalid) {
		t.Fatalf("Relocate on an in-place disk: %v", err)
	}
}

// TestRelocateCrash interleaves relocations with synchronous and
// asynchronous writes on device.Crash and recovers every crash state the
// recorder builds: each must hold the contents acknowledged before the
// crash point or those in flight. A relocation changes no contents, so a
// crash in the middle of one must recover exactly what was durable.
func TestRelocateCrash(t *testing.T) {
	seeds := testSeeds(t)
	if len(seeds) > 2 {
		seeds = []int64{seeds[0], seeds[len(seeds)-1]} // a fixed seed and a fresh one
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (replay with -vld.seed %d)", seed, seed)
			rng := rand.New(rand.NewSource(seed))
			// Fill the disk first, so that empty tracks are gone and writes
			// go into holes: a block freed too early would be reused.
			const span = 1400
			base, prefill := prefilledLogical(t, span)
			crash := device.NewCrash(base)
			d, err := Open(keepOpen{crash}, vld.Options{CheckpointEvery: []int{4, 0}[rng.Intn(2)]})
			if err != nil {
				t.Fatal(err)
			}
			h := newCrashHistory(crash, prefill)
			bs := d.BlockSize()
			for i := 0; i < 80; i++ {
				switch r := rng.Intn(6); {
				case r < 3:
					l := rng.Int63n(span)
					b := make([]byte, bs)
					b[1] = 0xAB
					b[0] = byte(1 + rng.Intn(250))
					h.cur[l] = b[0]
					if r == 0 {
						err = d.Write(l, [][]byte{b})
					} else {
						err = d.WriteSync(l, [][]byte{b})
						h.ack()
					}
				default:
					var n int
					if n, err = relocateSome(d, rng); n > 0 {
						h.ack() // a relocation commits pending writes too
					}
				}
				if err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				d.Volume().Idle(rng.Float64())
			}
			if err := d.Check(); err != nil {
				t.Fatal(err)
			}
			h.verify(t, rng, span, bs)
		})
	}
}

// prefilledLogical formats an 8 MiB st19101 logical disk and writes
// logical blocks [0, n) with first bytes 1..250, synced and closed.
func prefilledLogical(t *testing.T, n int64) (*device.Mem, map[int64]byte) {
	t.Helper()
	base := device.NewMem(8 << 20)
	if err := Format(base, vld.FormatOptions{Model: testModel(t, "st19101")}); err != nil {
		t.Fatal(err)
	}
	d, err := Open(keepOpen{base}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cur := map[int64]byte{}
	bs := d.BlockSize()
	for l := int64(0); l < n; l += 50 {
		data := make([][]byte, min(50, n-l))
		for i := range data {
			data[i] = make([]byte, bs)
			data[i][0] = byte(1 + (l+int64(i))%250)
			cur[l+int64(i)] = data[i][0]
		}
		if err := d.Write(l, data); err != nil {
			t.Fatal(err)
		}
		d.Volume().Idle(1.3) // scatter the writes a little
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return base, cur
}

// relocateSome moves a few live blocks of a random track holding some.
func relocateSome(d *Disk, rng *rand.Rand) (int, error) {
	nt := d.Volume().NumTracks()
	for try := 0; try < nt; try++ {
		tr := rng.Intn(nt)
		live, _, err := d.TrackLive(tr)
		if err != nil {
			return 0, err
		}
		if len(live) == 0 {
			continue
		}
		k := min(len(live), 1+rng.Intn(4))
		if rng.Intn(2) == 0 {
			if err := d.Prefetch(live); err != nil {
				return 0, err
			}
		}
		return d.Relocate(live[:k], vld.HoleOpts{Avoid: tr})
	}
	return 0, nil
}

// crashHistory records the contents acknowledged at each flush count.
type crashHistory struct {
	crash *device.Crash
	cur   map[int64]byte
	snaps []crashSnap[map[int64]byte]
}

func newCrashHistory(c *device.Crash, cur map[int64]byte) *crashHistory {
	h := &crashHistory{crash: c, cur: cur}
	h.ack()
	return h
}

func (h *crashHistory) ack() {
	s := make(map[int64]byte, len(h.cur))
	for k, v := range h.cur {
		s[k] = v
	}
	h.snaps = append(h.snaps, crashSnap[map[int64]byte]{h.crash.Flushes(), s})
}

func (h *crashHistory) verify(t *testing.T, rng *rand.Rand, span int64, bs int) {
	t.Helper()
	buf := make([]byte, bs)
	for _, st := range h.crash.States(rng, 2) {
		r := openLogicalState(t, h.crash, st)
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
		for _, a := range ackedOrInFlight(h.snaps, st.Flushes) {
			ok = ok || sameBytes(got, a)
		}
		if !ok {
			t.Fatalf("state %v: recovered contents match no acknowledged or in-flight state", st)
		}
		if err := r.Check(); err != nil {
			t.Fatalf("state %v: %v", st, err)
		}
	}
}

// TestRelocateLaterSettles: RelocateLater remaps without a commit, so the
// moved track stays in use (the old copies are released only by a
// durable commit) and an image taken then recovers the old map with
// every block intact; Settle commits, the track empties, and the image
// recovers the new map. Settle with nothing pending writes nothing.
func TestRelocateLaterSettles(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	d, dev := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	ref := fillLogical(t, d, rng, 300, 400)
	tr, live := busiestTrack(t, d)
	w0 := d.Volume().Stats().BlocksWritten
	if err := d.Settle(); err != nil || d.Volume().Stats().BlocksWritten != w0 {
		t.Fatalf("Settle with nothing pending: %v, %d blocks written", err, d.Volume().Stats().BlocksWritten-w0)
	}
	n, err := d.RelocateLater(live, vld.HoleOpts{Avoid: tr})
	if err != nil || n != len(live) {
		t.Fatalf("RelocateLater: moved %d of %d, %v", n, len(live), err)
	}
	if left, pinned, _ := d.TrackLive(tr); len(left) != 0 || pinned == 0 {
		t.Fatalf("before Settle: track %d lists %d movable and %d pinned blocks; want 0 and the old copies pinned", tr, len(left), pinned)
	}
	checkContents(t, d, ref)
	before := dev.Bytes()
	if err := d.Settle(); err != nil {
		t.Fatal(err)
	}
	sp, _ := d.Volume().Space(nil)
	if !sp[tr].Empty() {
		t.Fatalf("track %d not empty after Settle: %+v", tr, sp[tr])
	}
	checkContents(t, d, ref)
	for name, img := range map[string][]byte{"before Settle": before, "after Settle": dev.Bytes()} {
		r, err := Open(device.MemFrom(img), vld.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkContents(t, r, ref)
		if err := r.Check(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}
