package logical

import (
	"flag"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

// The helpers of vld's own tests (vld/helpers_test.go, vld/crash_test.go)
// that the logical disk's tests use: they cannot be imported from there.

var seedFlag = flag.Int64("vld.seed", 0, "replay the randomized logical-disk tests with this seed")

// testSeeds returns the seed to replay, or a few fixed seeds plus one from
// the clock, each printed so that a failure can be replayed with -vld.seed.
func testSeeds(t *testing.T) []int64 {
	if *seedFlag != 0 {
		return []int64{*seedFlag}
	}
	return []int64{1, 2, 3, time.Now().UnixNano()}
}

// testModel returns a preset, failing the test if it is missing.
func testModel(t testing.TB, name string) *disk.Model {
	t.Helper()
	m, err := disk.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return m
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

// openLogicalState opens the logical disk a crash at st leaves.
func openLogicalState(t *testing.T, crash *device.Crash, st device.State) *Disk {
	t.Helper()
	img, err := crash.Image(st)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(img, vld.Options{})
	if err != nil {
		t.Fatalf("state %v: %v", st, err)
	}
	return r
}
