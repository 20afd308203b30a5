package logical

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

func newTestLogical(t testing.TB, model string, size int64, o vld.Options) (*Disk, *device.Mem) {
	t.Helper()
	dev := device.NewMem(size)
	if err := Format(dev, vld.FormatOptions{Model: testModel(t, model)}); err != nil {
		t.Fatal(err)
	}
	d, err := Open(keepOpen{dev}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Check(); err != nil && !errors.Is(err, vld.ErrClosed) {
			t.Errorf("Check after test: %v", err)
		}
	})
	return d, dev
}

// TestLogicalDiskModel compares a logical disk with a plain map of block
// contents through random writes, trims, syncs and reopens.
func TestLogicalDiskModel(t *testing.T) {
	for _, seed := range testSeeds(t) {
		t.Run("", func(t *testing.T) {
			t.Logf("seed %d (replay with -vld.seed %d)", seed, seed)
			rng := rand.New(rand.NewSource(seed))
			d, dev := newTestLogical(t, "st19101", 16<<20, vld.Options{CheckpointEvery: 8})
			bs := d.BlockSize()
			ref := map[int64][]byte{}
			for step := 0; step < 300; step++ {
				l := rng.Int63n(d.Blocks() - 8)
				switch r := rng.Intn(10); {
				case r < 6:
					n := 1 + rng.Intn(8)
					data := make([][]byte, n)
					for i := range data {
						data[i] = make([]byte, bs)
						rng.Read(data[i][:16])
						ref[l+int64(i)] = data[i]
					}
					if err := d.Write(l, data); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				case r < 7:
					n := 1 + rng.Intn(8)
					if err := d.Trim(l, n); err != nil {
						t.Fatal(err)
					}
					for i := int64(0); i < int64(n); i++ {
						delete(ref, l+i)
					}
				case r < 9:
					if err := d.Sync(); err != nil {
						t.Fatal(err)
					}
				default:
					if err := d.Close(); err != nil {
						t.Fatal(err)
					}
					var err error
					if d, err = Open(keepOpen{dev}, vld.Options{CheckpointEvery: 8}); err != nil {
						t.Fatalf("step %d: reopen: %v", step, err)
					}
				}
				if err := d.Check(); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
			}
			buf := make([]byte, bs)
			zero := make([]byte, bs)
			for l := int64(0); l < d.Blocks(); l++ {
				if err := d.Read(l, buf); err != nil {
					t.Fatal(err)
				}
				want, ok := ref[l]
				if !ok {
					want = zero
				}
				if !bytes.Equal(buf, want) {
					t.Fatalf("logical block %d differs", l)
				}
			}
		})
	}
}

func TestLogicalDiskBounds(t *testing.T) {
	d, _ := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	bs := d.BlockSize()
	if err := d.Write(d.Blocks(), [][]byte{make([]byte, bs)}); !errors.Is(err, vld.ErrInvalid) {
		t.Fatalf("write past the end: %v", err)
	}
	if err := d.Write(-1, [][]byte{make([]byte, bs)}); !errors.Is(err, vld.ErrInvalid) {
		t.Fatalf("negative block: %v", err)
	}
	if err := d.Trim(d.Blocks()-1, 2); !errors.Is(err, vld.ErrInvalid) {
		t.Fatalf("trim past the end: %v", err)
	}
	// Filling every logical block must succeed: the export leaves room for
	// the map and the reserve.
	data := make([][]byte, 64)
	for i := range data {
		data[i] = make([]byte, bs)
	}
	for l := int64(0); l < d.Blocks(); l += 64 {
		n := int64(64)
		if l+n > d.Blocks() {
			n = d.Blocks() - l
		}
		if err := d.Write(l, data[:n]); err != nil {
			t.Fatalf("filling at %d of %d: %v", l, d.Blocks(), err)
		}
		if err := d.Sync(); err != nil {
			t.Fatalf("sync at %d: %v", l, err)
		}
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRecovery1GiB measures Open of a 1 GiB logical disk after an
// unclean stop: checkpoint, bounded scan of the log window (and, in
// "extra", of the extra log tracks a compactor turns on), tree walk. The
// disk is 80 % written and then updated randomly with a sync per write, so
// that the log is long when the "power fails". Wall clock.
func BenchmarkRecovery1GiB(b *testing.B) {
	for _, extra := range []bool{false, true} {
		b.Run(map[bool]string{false: "window", true: "extra"}[extra], func(b *testing.B) {
			benchmarkRecovery(b, extra)
		})
	}
}

func benchmarkRecovery(b *testing.B, extra bool) {
	dev := device.NewMem(1 << 30)
	if err := Format(dev, vld.FormatOptions{Model: testModel(b, "st19101")}); err != nil {
		b.Fatal(err)
	}
	d, err := Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d.Volume().SetExtraLogTracks(extra)
	bs := d.BlockSize()
	chunk := make([][]byte, 256)
	for i := range chunk {
		chunk[i] = make([]byte, bs)
	}
	fill := d.Blocks() * 8 / 10
	for l := int64(0); l+256 <= fill; l += 256 {
		if err := d.Write(l, chunk); err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Sync(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		if err := d.Write(rng.Int63n(fill), chunk[:1]); err != nil {
			b.Fatal(err)
		}
		if err := d.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	img := dev.Bytes() // no Close: the tail record is never written
	b.ResetTimer()
	var info vld.RecoveryInfo
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		d2, err := Open(device.MemFrom(img), vld.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(time.Since(t0).Milliseconds()), "ms/recovery(wall)")
		info = d2.Volume().Recovery()
		d2.Volume().Close()
	}
	b.ReportMetric(float64(info.ScannedBlocks*int64(bs))/(1<<20), "MiB-scanned")
	b.ReportMetric(float64(info.Entries), "entries")
	if info.Clean {
		b.Fatal("recovery used a tail record; the image was never closed")
	}
}

func TestLogicalInPlace(t *testing.T) {
	dev := device.NewMem(16 << 20)
	if err := FormatPlaced(dev, vld.FormatOptions{Model: testModel(t, "st19101")}, vld.PlaceInPlace); err != nil {
		t.Fatal(err)
	}
	d, err := Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	bs := d.BlockSize()
	b := make([]byte, bs)
	b[0] = 42
	if err := d.Write(100, [][]byte{b}); err != nil {
		t.Fatal(err)
	}
	if d.Mapped(100) != 104 {
		t.Fatalf("home of 100 is %d", d.Mapped(100))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, bs)
	if err := d.Read(100, got); err != nil || got[0] != 42 {
		t.Fatalf("read back %d, %v", got[0], err)
	}
	if d.Placement() != vld.PlaceInPlace {
		t.Fatal("placement not kept")
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
}
