package vld

import (
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// TestRangeQueueByHRS (issue 31): range writes that wait in the queue
// keep their hints (each lands right after its hint, which was free), and
// the one the head reaches first goes next, so 48 writes queued at once
// scattered over the disk take much less disk time than in arrival order
// (which is what they got before: FIFO, and no hints at all once anything
// was queued). No write is passed over more than maxPassed times.
func TestRangeQueueByHRS(t *testing.T) {
	_, dev, _ := newPlacedVolume(t, PlaceRange, 256<<20)
	img := dev.Bytes()
	rng := rand.New(rand.NewSource(7))
	const n = 48
	run := func(fifo bool) (float64, int64) {
		v, err := Open(keepOpen{device.MemFrom(img)}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Anchors: blocks in use spread over the disk, each followed by
		// free ones, as a file's last block before its append; far enough
		// apart that no write's growth room (vld/place/range_hold.go) covers
		// another's target.
		anchors := make([]Addr, n)
		r := rand.New(rand.NewSource(rng.Int63()))
		for i := range anchors {
		pick:
			for {
				a := Addr(16 + r.Int63n(int64(v.NumBlocks())-64))
				for _, b := range anchors[:i] {
					if a+300 > b && b+300 > a {
						continue pick
					}
				}
				anchors[i] = a
				break
			}
			if err := v.MarkLive(anchors[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := v.Start(); err != nil {
			t.Fatal(err)
		}
		v.place.fifoRanges = fifo
		t0 := v.Stats().SimNowMs
		for i, a := range anchors {
			if err := v.SubmitWrite([][]byte{block(v.BlockSize(), byte(i))}, WriteOpts{Near: []Addr{a}}, t0, uint64(i)); err != nil {
				t.Fatal(err)
			}
		}
		done, end := 0, t0
		for done < n {
			for _, c := range dispatched(t, v) {
				if want := anchors[c.Tag] + 1; c.Addrs[0] != want {
					t.Fatalf("write %d with hint %d went to %d, want %d (right after its hint)", c.Tag, anchors[c.Tag], c.Addrs[0], want)
				}
				done++
				end = max(end, c.DoneMs)
			}
		}
		live := append([]Addr(nil), anchors...)
		for _, a := range anchors {
			live = append(live, a+1)
		}
		if err := v.Check(live); err != nil {
			t.Fatal(err)
		}
		return end - t0, v.Stats().RangeQueuePicks
	}
	seed := rng.Int63()
	rng.Seed(seed)
	hrs, picks := run(false)
	rng.Seed(seed)
	fifo, fifoPicks := run(true)
	t.Logf("%d range writes queued at once: %.1f ms by HRS over the queue (%d picked out of turn), %.1f ms in arrival order (%.2fx)", n, hrs, picks, fifo, hrs/fifo)
	if picks == 0 || fifoPicks != 0 {
		t.Fatalf("%d writes picked out of turn by HRS, %d in FIFO order", picks, fifoPicks)
	}
	if hrs >= 0.8*fifo {
		t.Fatalf("HRS over the queue took %.1f ms, arrival order %.1f ms: want at most 0.8x", hrs, fifo)
	}
}
