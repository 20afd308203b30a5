package vld_test

import (
	"runtime"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
)

// BenchmarkVLDMemory4GiB fills a 4 GiB logical disk (st19101, sparse image
// file) to 90 % and reports the VLD's heap per GiB of disk: allocator,
// logical-to-physical map, virtual-log tree and piece payloads. The target
// is at most 16 MiB per GiB.
func BenchmarkVLDMemory4GiB(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dev, err := device.OpenFile(b.TempDir()+"/mem.img", device.FileOptions{Create: true, Size: 4 << 30})
		if err != nil {
			b.Fatal(err)
		}
		if err := logical.Format(keepOpen{dev}, vld.FormatOptions{Model: testModel(b, "st19101")}); err != nil {
			b.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := logical.Open(keepOpen{dev}, vld.Options{})
		if err != nil {
			b.Fatal(err)
		}
		chunk := make([][]byte, 256)
		for j := range chunk {
			chunk[j] = make([]byte, d.BlockSize())
		}
		fill := d.Blocks() * 9 / 10
		for l := int64(0); l+256 <= fill; l += 256 {
			if err := d.Write(l, chunk); err != nil {
				b.Fatal(err)
			}
			if l%(64<<10) == 0 {
				if err := d.Sync(); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := d.Sync(); err != nil {
			b.Fatal(err)
		}
		chunk = nil
		runtime.GC()
		runtime.ReadMemStats(&after)
		gib := float64(d.Volume().NumBlocks()) * float64(d.BlockSize()) / (1 << 30)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20)/gib, "MiB/GiB")
		runtime.KeepAlive(d)
		d.Close()
		dev.Close()
	}
}
