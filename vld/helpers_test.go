package vld

import (
	"fmt"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

// testModel returns a preset, failing the test if it is missing.
func testModel(t testing.TB, name string) *disk.Model {
	t.Helper()
	m, err := disk.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newTestVolume formats a memory device of size bytes and opens it, started
// and empty. Check runs when the test ends.
func newTestVolume(t testing.TB, model string, size int64, o Options) (*Volume, *device.Mem) {
	t.Helper()
	dev := device.NewMem(size)
	if err := Format(dev, FormatOptions{Model: testModel(t, model), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(keepOpen{dev}, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	return v, dev
}

// dispatched runs one Dispatch of v and returns its completions, failing
// t on an error of the dispatch or of any request.
func dispatched(t testing.TB, v *Volume) []Completion {
	t.Helper()
	cs, err := v.Dispatch()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Err != nil {
			t.Fatal(c.Err)
		}
	}
	return cs
}

func block(bs int, fill byte) []byte {
	b := make([]byte, bs)
	for i := range b {
		b[i] = fill + byte(i%7)
	}
	return b
}

// keepOpen lets a test reopen a device after Volume.Close.
type keepOpen struct{ device.Device }

func (keepOpen) Close() error { return nil }

// crashSnap is the state a test acknowledged once the device had seen
// flushes flushes.
type crashSnap[S any] struct {
	flushes int
	state   S
}

// ackedOrInFlight returns the states a crash after f flushes may recover:
// the last one acknowledged at or before f, and the one in flight after
// it.
func ackedOrInFlight[S any](snaps []crashSnap[S], f int) []S {
	var allowed []S
	for _, s := range snaps {
		if s.flushes <= f {
			allowed = []S{s.state}
		} else {
			allowed = append(allowed, s.state)
			break
		}
	}
	return allowed
}

// commitAndCheck commits piece 0 with the one-byte payload b and runs
// Check with live as the client's blocks.
func commitAndCheck(t testing.TB, v *Volume, live []Addr, b byte) {
	t.Helper()
	if err := v.Commit(map[uint32][]byte{0: {b}}); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(live); err != nil {
		t.Fatal(err)
	}
}

// stopAsBefore stops v cleanly the way builds before piece copies did
// (Options.KeepLog): the tail names the log's root, so the log since the
// last checkpoint stays on disk. Images such builds left must still
// open, damaged or not.
func stopAsBefore(t testing.TB, v *Volume) {
	t.Helper()
	v.mu.Lock()
	v.opts.KeepLog = true
	v.mu.Unlock()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
}

// roundCommitter returns a function that commits pieces [lo, hi) of v as
// "piece P round R" and records each in want.
func roundCommitter(t testing.TB, v *Volume, want map[uint32]string) func(lo, hi uint32, round int) {
	return func(lo, hi uint32, round int) {
		t.Helper()
		m := map[uint32][]byte{}
		for p := lo; p < hi; p++ {
			want[p] = fmt.Sprintf("piece %d round %d", p, round)
			m[p] = []byte(want[p])
		}
		if err := v.Commit(m); err != nil {
			t.Fatal(err)
		}
	}
}

// checkpointNow takes a regular checkpoint of v.
func checkpointNow(t testing.TB, v *Volume) {
	t.Helper()
	v.commitMu.Lock()
	defer v.commitMu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.checkpointLocked(false); err != nil {
		t.Fatal(err)
	}
}
