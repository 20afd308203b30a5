package vlfs

import (
	"errors"
	"flag"
	"sort"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
)

var seedFlag = flag.Int64("vlfs.seed", 0, "replay the randomized test with this seed (0 = random)")

// testImage is an in-memory image with a mounted file system on it.
type testImage struct {
	t      testing.TB
	dev    device.Device
	fs     *FS
	o      Options
	vo     *vld.Options // the volume's options if not VolumeOptions(o)
	limits *cacheLimits // if set, applied at every mount
}

func testModel(t testing.TB) *disk.Model {
	t.Helper()
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newImage formats a size-byte memory image and mounts it; cleanup checks
// the file system and closes it.
func newImage(t testing.TB, size int64) *testImage {
	t.Helper()
	return mountImage(t, newFormatted(t, size), Options{Logf: t.Logf})
}

// newFormatted returns a freshly formatted memory image.
func newFormatted(t testing.TB, size int64) *device.Mem {
	t.Helper()
	return newFormattedVersion(t, size, 0)
}

// newFormattedVersion formats a memory image as file-system version v (0:
// the default).
func newFormattedVersion(t testing.TB, size int64, v uint32) *device.Mem {
	t.Helper()
	dev := device.NewMem(size)
	if err := Mkfs(dev, MkfsOptions{Model: testModel(t), Version: v}); err != nil {
		t.Fatalf("mkfs: %v", err)
	}
	return dev
}

// mountImage mounts dev (kept open across remounts) and registers the
// final Check and Close.
func mountImage(t testing.TB, dev device.Device, o Options) *testImage {
	t.Helper()
	return mountImageVol(t, dev, nil, o)
}

// realClock is the default volume options of o on the real-time clock:
// each device request takes its simulated service time.
func realClock(o Options) *vld.Options {
	vo := VolumeOptions(o)
	vo.Clock = vld.ClockReal
	return &vo
}

// mountImageVol is mountImage with the volume's options vo (nil: the
// default, VolumeOptions).
func mountImageVol(t testing.TB, dev device.Device, vo *vld.Options, o Options) *testImage {
	t.Helper()
	im := &testImage{t: t, dev: dev, o: o, vo: vo}
	im.mount()
	t.Cleanup(func() {
		if im.fs == nil {
			return
		}
		if err := im.fs.Check(); err != nil {
			t.Errorf("final check: %v", err)
		}
		if err := im.fs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return im
}

func (im *testImage) mount() {
	im.t.Helper()
	vo := VolumeOptions(im.o)
	if im.vo != nil {
		vo = *im.vo
	}
	fs, err := MountWith(noClose{im.dev}, vo, im.o)
	if err != nil {
		im.t.Fatalf("mount: %v", err)
	}
	if im.limits != nil {
		fs.limits = *im.limits
	}
	im.fs = fs
}

// remount checks, closes and mounts the image again.
func (im *testImage) remount() {
	im.t.Helper()
	im.check()
	if err := im.fs.Close(); err != nil {
		im.t.Fatalf("close: %v", err)
	}
	im.fs = nil
	im.mount()
	im.check()
}

// coldRemount closes and mounts the image again without checking it, so
// that nothing but what mounting reads is in memory.
func (im *testImage) coldRemount() {
	im.t.Helper()
	if err := im.fs.Close(); err != nil {
		im.t.Fatalf("close: %v", err)
	}
	im.fs = nil
	im.mount()
}

func (im *testImage) check() {
	im.t.Helper()
	if err := im.fs.Check(); err != nil {
		im.t.Fatalf("check: %v", err)
	}
}

// result carries a call's value and error; ok fails the test on the error.
type result[T any] struct {
	v   T
	err error
}

// must wraps a (value, error) call: must(fs.Create(...)).ok(t).
func must[T any](v T, err error) result[T] { return result[T]{v, err} }

func (r result[T]) ok(t testing.TB) T {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.v
}

func wantErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
}

// imageCopy returns a memory device holding dev's current bytes: the image
// a crash right now would leave if every write so far were durable.
func imageCopy(t testing.TB, dev device.Device) *device.Mem {
	t.Helper()
	b := make([]byte, dev.Size())
	if _, err := dev.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return device.MemFrom(b)
}

func slicesSort(s []string) { sort.Strings(s) }

// atRest copies every piece the volume holds in a single log entry
// (vld.Volume.Protect), so that free-block counts compared across
// changes count the volume's own metadata the same way: a piece changed
// since the last checkpoint at rest is one entry plus its pinned copies.
func atRest(t testing.TB, fs *FS) {
	t.Helper()
	if err := fs.vol.Protect(); err != nil {
		t.Fatal(err)
	}
}

// firstDiff is the index of the first byte where a and b differ (or the
// shorter length).
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
