package vld

import (
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
