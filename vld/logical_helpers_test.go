package vld_test

import (
	"errors"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// The helpers of the external tests, which run a logical disk on the
// volume: vld's own (export_test.go) under their names there, and the
// logical disk's that vld/logical's tests have too.

func testModel(t testing.TB, name string) *disk.Model { t.Helper(); return vld.PresetModel(t, name) }

func block(bs int, fill byte) []byte { return vld.Block(bs, fill) }

func testSeeds(t *testing.T) []int64 { return vld.Seeds(t) }

type keepOpen = vld.KeepOpen

type crashSnap[S any] = vld.CrashSnap[S]

func ackedOrInFlight[S any](snaps []crashSnap[S], f int) []S { return vld.AckedOrInFlight(snaps, f) }

// newTestLogical formats a memory device of size bytes as a logical disk
// and opens it; Check runs when the test ends.
func newTestLogical(t testing.TB, model string, size int64, o vld.Options) (*logical.Disk, *device.Mem) {
	t.Helper()
	dev := device.NewMem(size)
	if err := logical.Format(dev, vld.FormatOptions{Model: testModel(t, model)}); err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(keepOpen{dev}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Check(); err != nil && !errors.Is(err, vld.ErrClosed) {
			t.Errorf("Check after test: %v", err)
		}
	})
	return d, dev
}

// openLogicalState opens the logical disk a crash at st leaves.
func openLogicalState(t *testing.T, crash *device.Crash, st device.State) *logical.Disk {
	t.Helper()
	img, err := crash.Image(st)
	if err != nil {
		t.Fatal(err)
	}
	r, err := logical.Open(img, vld.Options{})
	if err != nil {
		t.Fatalf("state %v: %v", st, err)
	}
	return r
}
