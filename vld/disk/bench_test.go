package disk

import (
	"math/rand"
	"testing"
)

// BenchmarkPositionMs measures the allocator's fast path on a one-zone and
// an eight-zone disk.
func BenchmarkPositionMs(b *testing.B) {
	for _, name := range []string{"st19101", "hpc2247a"} {
		b.Run(name, func(b *testing.B) {
			l := mustLayout(b, mustPreset(b, name), 4096, 0)
			rng := rand.New(rand.NewSource(1))
			blocks := make([]int64, 1024)
			for i := range blocks {
				blocks[i] = rng.Int63n(l.NumBlocks())
			}
			h := Head{Cyl: 10, Surf: 3}
			b.ResetTimer()
			var sink float64
			for i := 0; i < b.N; i++ {
				sink += l.PositionMs(h, float64(i), blocks[i&1023], true)
			}
			_ = sink
		})
	}
}
