package vlfs

import (
	"bytes"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// slowWrites is a device whose every write request takes at least delay
// (a disk's service time, as --clock real sleeps it).
type slowWrites struct {
	device.Device
	delay time.Duration
}

func (d slowWrites) WriteAt(p []byte, off int64) (int, error) {
	time.Sleep(d.delay)
	return d.Device.WriteAt(p, off)
}

// BenchmarkChmodDuringBigFsync: the wall-clock latency of a chmod while
// another thread writes 2 MiB to a file and fsyncs it, over and over, on
// a device whose write requests take 2 ms each. When a commit wrote its
// buffered data under FS.mu, a chmod arriving then waited for the whole
// write-out; with the batched write-out (writeout_batch.go) it waits at
// most for the pick or the landing of a batch. The chmods arrive 300 µs
// apart. Reports the chmod's p50 and p99 (wall clock) and the fsyncs done.
func BenchmarkChmodDuringBigFsync(b *testing.B) {
	im := mountImage(b, slowWrites{newFormatted(b, 256<<20), 2 * time.Millisecond}, Options{})
	fs := im.fs
	a := must(fs.Create(RootIno, "a", 0o644, 0, 0)).ok(b).Ino
	c := must(fs.Create(RootIno, "c", 0o644, 0, 0)).ok(b).Ino
	data := bytes.Repeat([]byte{'w'}, 2<<20)
	var stop atomic.Bool
	var fsyncs atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			if _, err := fs.Write(a, int64(i%16)*int64(len(data)), data); err != nil {
				b.Error(err)
				return
			}
			if err := fs.Fsync(a, false); err != nil {
				b.Error(err)
				return
			}
			fsyncs.Add(1)
		}
	}()
	time.Sleep(10 * time.Millisecond)
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
	stop.Store(true)
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(fsyncs.Load()), "fsyncs")
}
