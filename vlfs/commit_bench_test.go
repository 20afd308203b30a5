package vlfs

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/zerofill"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// countingDev counts the writes and flushes that reach a device.
type countingDev struct {
	device.Device
	writes, flushes, bytes atomic.Int64
	// blocks counts the 4 KiB blocks writes touch: a sector-granular log
	// entry's short write counts as the block it lies in.
	blocks           atomic.Int64
	writeNs, flushNs atomic.Int64
}

func (d *countingDev) count(p []byte) {
	d.bytes.Add(int64(len(p)))
	d.blocks.Add(int64((len(p) + 4095) / 4096))
}

func (d *countingDev) WriteAt(p []byte, off int64) (int, error) {
	d.writes.Add(1)
	d.count(p)
	t := time.Now()
	defer func() { d.writeNs.Add(int64(time.Since(t))) }()
	return d.Device.WriteAt(p, off)
}

// WriteVecAt counts one request and passes it on as one.
func (d *countingDev) WriteVecAt(bufs [][]byte, off int64) (int, error) {
	d.writes.Add(1)
	for _, b := range bufs {
		d.count(b)
	}
	t := time.Now()
	defer func() { d.writeNs.Add(int64(time.Since(t))) }()
	return device.WriteVec(d.Device, bufs, off)
}

func (d *countingDev) Flush() error {
	d.flushes.Add(1)
	t := time.Now()
	defer func() { d.flushNs.Add(int64(time.Since(t))) }()
	return d.Device.Flush()
}

// BenchmarkWriteFsync is issue 3's synchronous small write without FUSE: one
// writer, 4 KiB written then fsync'd, over an image file in the test's
// temporary directory (wall clock: real pwrite and fdatasync on the host
// file system; the disk model runs on the virtual clock and costs no wall
// time), and over memory (the CPU cost alone). It reports the device writes
// and flushes each fsync costs, for file-system versions 2 and 3 (log
// records).
func BenchmarkWriteFsync(b *testing.B) {
	for _, v := range []uint32{ondisk.FSVersionNodeMap, ondisk.FSVersionRecords} {
		b.Run(fmt.Sprintf("v%d", v), func(b *testing.B) { benchWriteFsync(b, v) })
	}
}

func benchWriteFsync(b *testing.B, version uint32) {
	const size = 128 << 20
	for _, c := range []struct {
		name string
		dev  func(b *testing.B) device.Device
	}{
		{"file", func(b *testing.B) device.Device {
			path := filepath.Join(b.TempDir(), "img")
			d, err := device.OpenFile(path, device.FileOptions{Create: true, Size: size})
			if err != nil {
				b.Fatal(err)
			}
			// Zero-filled like vlfs mkfs's images, so fdatasync does not
			// also allocate host blocks.
			if _, err := zerofill.File(path, nil); err != nil {
				b.Fatal(err)
			}
			return d
		}},
		{"mem", func(*testing.B) device.Device { return device.NewMem(size) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			dev := &countingDev{Device: c.dev(b)}
			if err := Mkfs(dev, MkfsOptions{Model: testModel(b), Version: version}); err != nil {
				b.Fatal(err)
			}
			fs, err := Mount(dev, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				if err := fs.Close(); err != nil {
					b.Error(err)
				}
			}()
			a, err := fs.Create(RootIno, "f", 0o644, 0, 0)
			if err != nil {
				b.Fatal(err)
			}
			block := make([]byte, 4096)
			// Warm up: the file's blocks exist before timing starts, as in
			// an overwrite workload.
			for i := 0; i < 256; i++ {
				if _, err := fs.Write(a.Ino, int64(i)*4096, block); err != nil {
					b.Fatal(err)
				}
			}
			if err := fs.Fsync(a.Ino, false); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(4096)
			w0, f0, by0 := dev.writes.Load(), dev.flushes.Load(), dev.bytes.Load()
			wns0, fns0 := dev.writeNs.Load(), dev.flushNs.Load()
			n := 0
			for i := 0; b.Loop(); i++ {
				block[0] = byte(i)
				if _, err := fs.Write(a.Ino, int64(i%256)*4096, block); err != nil {
					b.Fatal(err)
				}
				if err := fs.Fsync(a.Ino, false); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(dev.writes.Load()-w0)/float64(n), "devwrites/fsync")
			b.ReportMetric(float64(dev.flushes.Load()-f0)/float64(n), "flushes/fsync")
			b.ReportMetric(float64(dev.bytes.Load()-by0)/float64(n), "devbytes/fsync")
			b.ReportMetric(float64(dev.writeNs.Load()-wns0)/float64(n), "writens/fsync")
			b.ReportMetric(float64(dev.flushNs.Load()-fns0)/float64(n), "flushns/fsync")
		})
	}
}

// BenchmarkFsyncAfterStorm is a 4 KiB write+fsync on memory after a
// metadata storm (creates of many files, all committed), beside the same
// on a fresh file system: what the storm leaves behind must not slow every
// later fsync (a map that grew in the storm and is iterated per commit).
func BenchmarkFsyncAfterStorm(b *testing.B) {
	for _, files := range []int{0, 100_000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			fs := newImage(b, 512<<20).fs // checked and closed at cleanup
			dir := must(fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(b)
			for i := range files {
				must(fs.Create(dir.Ino, fmt.Sprintf("f%d", i), 0o644, 0, 0)).ok(b)
			}
			must(0, fs.Sync()).ok(b)
			a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(b)
			block := make([]byte, 4096)
			b.ResetTimer()
			for i := range b.N {
				if _, err := fs.Write(a.Ino, int64(i%256)*4096, block); err != nil {
					b.Fatal(err)
				}
				if err := fs.Fsync(a.Ino, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFsyncAfterBigWrite is a 4 KiB write+fsync into a file that was
// first written whole (64 MiB, as fio lays out its file, or dd), beside one
// written 1 MiB: the file's map of buffered blocks grew to the whole file
// once, and every later write-out of the file iterated its empty slots
// (8.5 % of the server's CPU in fio's randwrite-fsync through FUSE) until
// it was dropped once empty. The 512 MiB file (1,024 leaf indirect blocks
// loaded) shows that a commit no longer scans every loaded indirect block,
// only the dirty ones (inode.dirtyNodes). Images are twice the file (at
// least 512 MiB), so placement finds the same room.
func BenchmarkFsyncAfterBigWrite(b *testing.B) {
	for _, mib := range []int{1, 64, 512} {
		b.Run(fmt.Sprintf("file=%dMiB", mib), func(b *testing.B) {
			fs := newImage(b, max(512, 2*int64(mib))<<20).fs // checked and closed at cleanup
			a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(b)
			chunk := make([]byte, 1<<20)
			for i := range mib {
				must(fs.Write(a.Ino, int64(i)<<20, chunk)).ok(b)
			}
			must(0, fs.Fsync(a.Ino, false)).ok(b)
			block := make([]byte, 4096)
			blocks := mib << 8
			b.ResetTimer()
			for i := range b.N {
				if _, err := fs.Write(a.Ino, int64((i*7919)%blocks)*4096, block); err != nil {
					b.Fatal(err)
				}
				if err := fs.Fsync(a.Ino, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
