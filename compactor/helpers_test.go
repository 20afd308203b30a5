package compactor

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// fragmented formats an st19101 logical disk of size bytes on dev (a new
// memory device if nil), writes a file of util of its blocks, then updates
// random blocks of it as many times as it has blocks, with no idle time,
// so that the empty tracks are used up. It returns the disk and the
// reference contents (first byte of each block, also stored in bytes 1-8).
func fragmented(t testing.TB, dev device.Device, size int64, util float64, seed int64) (*logical.Disk, map[int64][]byte) {
	t.Helper()
	if dev == nil {
		dev = device.NewMem(size)
	}
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	if err := logical.Format(dev, vld.FormatOptions{Model: m}); err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(seed))
	n := int64(float64(d.Blocks()) * util)
	ref := make(map[int64][]byte, n)
	blk := func(l int64) []byte {
		b := make([]byte, d.BlockSize())
		rng.Read(b[:16])
		ref[l] = b
		return b
	}
	for l := int64(0); l < n; l += 32 {
		var data [][]byte
		for i := l; i < min(l+32, n); i++ {
			data = append(data, blk(i))
		}
		if err := d.Write(l, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < n; i++ {
		l := rng.Int63n(n)
		if err := d.WriteSync(l, [][]byte{blk(l)}); err != nil {
			t.Fatal(err)
		}
	}
	return d, ref
}

func checkContents(t testing.TB, d *logical.Disk, ref map[int64][]byte) {
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
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
}
