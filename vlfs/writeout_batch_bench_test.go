package vlfs

import (
	"bytes"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkChmodDuringBigFsync: the wall-clock latency of a chmod while
// another thread writes 2 MiB to a file and fsyncs it, over and over, on
// a device whose write requests take 2 ms each. When a commit wrote its
// buffered data under FS.mu, a chmod arriving then waited for the whole
// write-out; with the batched write-out (writeout_batch.go) it waits at
// most for the pick or the landing of a batch. The chmods arrive 300 µs
// apart. Reports the chmod's p50 and p99 (wall clock) and the fsyncs done.
func BenchmarkChmodDuringBigFsync(b *testing.B) {
	im := mountImage(b, slowDevice{Device: newFormatted(b, 256<<20), write: 2 * time.Millisecond}, Options{})
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
	benchChmods(b, fs, c)
	stop.Store(true)
	wg.Wait()
	b.ReportMetric(float64(fsyncs.Load()), "fsyncs")
}
