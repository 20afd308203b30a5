package vld

import (
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

// TestFormatOpensClean: a new volume's first open finds the tail record
// Format wrote and reads none of its log window, however large the disk.
func TestFormatOpensClean(t *testing.T) {
	dev := device.NewMem(64 << 20)
	if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if r := v.Recovery(); !r.Clean || r.ScannedBlocks != 0 {
		t.Fatalf("first open: clean %v, %d blocks scanned; want clean, 0", r.Clean, r.ScannedBlocks)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	if err := v.Check(nil); err != nil {
		t.Fatal(err)
	}
}

// TestFormatEveryPreset: every preset's model fits the superblock and
// formats; the zoned 4 TB one with 16 zones is the largest model JSON.
func TestFormatEveryPreset(t *testing.T) {
	for _, name := range disk.PresetNames() {
		dev := device.NewMem(16 << 20)
		if err := Format(dev, FormatOptions{Model: testModel(t, name), Kind: "test"}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
