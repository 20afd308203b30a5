package vld

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// TestLogWindowOption: Options.LogWindow sets how many tracks the log
// window spans from the next checkpoint on, entries stay inside it, and an
// unclean reopen (which scans the window recorded in the checkpoint, opened
// with the default option) recovers every commit.
func TestLogWindowOption(t *testing.T) {
	for _, frac := range []float64{0, 0.5, 1} {
		v, dev := newTestVolume(t, "st19101", 32<<20, Options{LogWindow: frac, CheckpointEvery: 8})
		v.SetExtraLogTracks(frac != 0.5) // with and without extra tracks
		n := v.NumTracks()
		want := max(n/16, 64)
		if frac > 0 {
			want = max(int(math.Ceil(frac*float64(n))), 64)
		}
		want = min(want, n)
		last := map[uint32][]byte{}
		for i := 0; i < 40; i++ {
			p := uint32(i % 5)
			last[p] = []byte{byte(i), byte(p)}
			if err := v.Commit(map[uint32][]byte{p: last[p]}); err != nil {
				t.Fatal(err)
			}
		}
		sp, _ := v.Space(nil)
		in := 0
		for _, s := range sp {
			if s.InLogWindow {
				in++
			}
		}
		// The window, and the extra tracks the checkpoint lists beside it.
		ck := v.log.ckpt
		if int(ck.WindowTracks) != want {
			t.Fatalf("LogWindow %v: %d tracks in the window, want %d of %d", frac, ck.WindowTracks, want, n)
		}
		if len(ck.Extra) > min(extraPerWindow*want, n-want) {
			t.Fatalf("LogWindow %v: %d extra tracks beside a window of %d", frac, len(ck.Extra), want)
		}
		if in != want+len(ck.Extra) {
			t.Fatalf("LogWindow %v: %d tracks take entries, want %d in the window and %d extra", frac, in, want, len(ck.Extra))
		}
		if err := v.Check(nil); err != nil {
			t.Fatal(err)
		}
		// No tail record: recovery scans the checkpoint's window.
		v2, err := Open(keepOpen{device.MemFrom(dev.Bytes())}, Options{})
		if err != nil {
			t.Fatalf("LogWindow %v: unclean reopen: %v", frac, err)
		}
		got := v2.Pieces()
		for p, b := range last {
			// Pieces come back padded to the payload size.
			if !bytes.HasPrefix(got[p], b) {
				t.Fatalf("LogWindow %v: piece %d starts %v after recovery, want %v", frac, p, got[p][:min(len(got[p]), 4)], b)
			}
		}
	}
}

func TestLogWindowRejectsBadFractions(t *testing.T) {
	dev := device.NewMem(8 << 20)
	if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := Open(keepOpen{dev}, Options{LogWindow: f}); !errors.Is(err, ErrInvalid) {
			t.Errorf("LogWindow %v: %v, want ErrInvalid", f, err)
		}
	}
}
