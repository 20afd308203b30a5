package vld

import (
	"bytes"
	"slices"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
)

// TestInPlaceBatching: with BatchInPlace an in-place volume batches its
// queued writes as Options.Batch says, so a read that arrives behind them
// is served between batches, and every block still goes to its home, also
// in a batch made of pieces of several requests (batchHints). Without it
// the volume serves FIFO, the read after every write.
func TestInPlaceBatching(t *testing.T) {
	type result struct {
		readDone, lastWrite float64
	}
	run := func(batchInPlace bool) result {
		dev := device.NewMem(16 << 20)
		if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test", Placement: PlaceInPlace}); err != nil {
			t.Fatal(err)
		}
		v, err := Open(keepOpen{dev}, Options{Batch: sched.Batch{Mode: sched.BatchFixed, Blocks: 4}, BatchInPlace: batchInPlace})
		if err != nil {
			t.Fatal(err)
		}
		if err := v.Start(); err != nil {
			t.Fatal(err)
		}
		bs := v.BlockSize()
		// Homes scattered over the disk: every other block of a range
		// far from the read's target.
		var old [][]byte
		for i := range 36 {
			old = append(old, block(bs, byte(i)))
		}
		first, err := v.WriteBlocks(old, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		target, err := v.WriteBlocks([][]byte{block(bs, 99)}, WriteOpts{})
		if err != nil {
			t.Fatal(err)
		}
		// Nine requests of two blocks each rewrite homes 0, 2, 4, ...:
		// a batch of 4 takes two requests.
		t0 := v.NowMs() + 1
		var homes []Addr
		var news [][]byte
		for r := range 9 {
			var data [][]byte
			var near []Addr
			for j := range 2 {
				h := first[2*(2*r+j)]
				b := block(bs, byte(100+2*r+j))
				data, near, news, homes = append(data, b), append(near, h), append(news, b), append(homes, h)
			}
			rep := []bool{true, true}
			if err := v.SubmitWrite(data, WriteOpts{Near: near, Replaces: rep}, t0, uint64(r+1)); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]byte, bs)
		if err := v.SubmitRead(target[0], buf, t0+0.5, 100); err != nil {
			t.Fatal(err)
		}
		var res result
		var landed []Addr
		for v.Queued() > 0 {
			for _, c := range dispatched(t, v) {
				if c.Write {
					res.lastWrite = max(res.lastWrite, c.DoneMs)
					landed = append(landed, c.Addrs...)
				} else {
					res.readDone = c.DoneMs
				}
			}
		}
		if !bytes.Equal(buf, block(bs, 99)) {
			t.Error("the queued read returned the wrong data")
		}
		slices.Sort(landed)
		want := slices.Clone(homes)
		slices.Sort(want)
		if !slices.Equal(landed, want) {
			t.Fatalf("batch in place %v: the writes landed at %v, want their homes %v", batchInPlace, landed, want)
		}
		for i, h := range homes {
			if err := v.ReadBlock(h, buf); err != nil || !bytes.Equal(buf, news[i]) {
				t.Fatalf("batch in place %v: home %d does not hold its new block (%v)", batchInPlace, h, err)
			}
		}
		if got := v.Stats().BatchBlocks; batchInPlace != (got == 4) {
			t.Errorf("batch in place %v: the volume batches %d blocks", batchInPlace, got)
		}
		return res
	}
	fifo, batched := run(false), run(true)
	t.Logf("FIFO: read done %.2f, last write %.2f; batched: read %.2f, last write %.2f (ms)", fifo.readDone, fifo.lastWrite, batched.readDone, batched.lastWrite)
	if fifo.readDone <= fifo.lastWrite {
		t.Errorf("FIFO: the read done at %v before the writes it queued behind (%v)", fifo.readDone, fifo.lastWrite)
	}
	if batched.readDone >= batched.lastWrite {
		t.Errorf("batched: the read done at %v, after every write (%v)", batched.readDone, batched.lastWrite)
	}
}
