package vlfstest

import (
	"flag"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// The flag keeps the name it had in package vlfs, so that a printed seed
// replays the same way: go test ./vlfs/vlfstest -run X -vlfs.seed=N.
var seedFlag = flag.Int64("vlfs.seed", 0, "replay the randomized test with this seed (0 = random)")

// newFormatted returns a freshly formatted memory image of the default
// file-system version.
func newFormatted(t testing.TB, size int64) *device.Mem {
	t.Helper()
	return newFormattedVersion(t, size, 0)
}

// newFormattedVersion formats a memory image as file-system version v (0:
// the default) on the st19101 model.
func newFormattedVersion(t testing.TB, size int64, v uint32) *device.Mem {
	t.Helper()
	dev := device.NewMem(size)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: st19101(t), Version: v}); err != nil {
		t.Fatalf("mkfs: %v", err)
	}
	return dev
}

// st19101 is the disk model the tests format with.
func st19101(t testing.TB) *disk.Model {
	t.Helper()
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
