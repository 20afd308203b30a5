package vlfs

import (
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkChmodDuringReads: the wall-clock latency of a chmod (SetAttr)
// while 4 readers read file A's blocks from a device whose reads take
// 2 ms (a disk's service time, as --clock real sleeps it). When Read held
// FS.mu across the device read, every chmod waited for one; now it does
// not (issue 31). The chmods arrive 300 µs apart. Reports the chmod's p50
// and p99 (wall clock) and the reads done per chmod.
func BenchmarkChmodDuringReads(b *testing.B) {
	im := mountImage(b, slowDevice{Device: newFormatted(b, 16<<20), read: 2 * time.Millisecond}, Options{})
	fs := im.fs
	bs := fs.geo.bs
	const blocks = 256
	a := must(fs.Create(RootIno, "a", 0o644, 0, 0)).ok(b).Ino
	for i := range uint32(blocks) {
		must(fs.Write(a, int64(i)*int64(bs), gateBlock(bs, 'A', i, 0))).ok(b)
	}
	must(0, fs.Sync()).ok(b)
	c := must(fs.Create(RootIno, "c", 0o644, 0, 0)).ok(b).Ino
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, bs)
			for i := r; !stop.Load(); i += 4 {
				if _, err := fs.Read(a, int64(i%blocks)*int64(bs), buf); err != nil {
					b.Error(err)
					return
				}
				reads.Add(1)
			}
		}()
	}
	time.Sleep(10 * time.Millisecond)
	benchChmods(b, fs, c)
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(reads.Load())/float64(b.N), "reads/op")
}

// benchChmods times b.N chmods of file c, 300 µs apart (operations arrive
// spread out, as the background work's do), and reports their p50 and p99
// on the wall clock. The timer runs only around them.
func benchChmods(b *testing.B, fs *FS, c Ino) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		time.Sleep(300 * time.Microsecond)
		start := time.Now()
		if _, err := fs.SetAttr(c, SetAttr{Mask: SetMode, Mode: 0o600 | uint32(i%2)*0o44}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
