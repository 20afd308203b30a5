package diskfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
)

// keepOpen lets a test reopen a memory device after the volume closed it.
type keepOpen struct{ device.Device }

func (keepOpen) Close() error { return nil }

func testModel(t testing.TB) *disk.Model {
	t.Helper()
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newMemLogical formats a memory device as a logical disk and opens it;
// Check runs when the test ends unless the disk was closed.
func newMemLogical(t testing.TB, size int64, p vld.Placement) (*Logical, *device.Mem) {
	t.Helper()
	dev := device.NewMem(size)
	if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: testModel(t)}, p); err != nil {
		t.Fatal(err)
	}
	return openMemLogical(t, dev), dev
}

func openMemLogical(t testing.TB, dev *device.Mem) *Logical {
	t.Helper()
	d, err := logical.Open(keepOpen{dev}, vld.Options{CheckpointEvery: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Check(); err != nil && !errors.Is(err, vld.ErrClosed) {
			t.Errorf("Check after test: %v", err)
		}
	})
	return NewLogical(d)
}

// needFUSE skips, saying why, when FUSE mounts cannot be made here.
func needFUSE(t testing.TB) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skipf("FUSE tests need /dev/fuse: %v", err)
	}
	if _, err := exec.LookPath("fusermount3"); err != nil {
		t.Skipf("FUSE tests need fusermount3 (package fuse3; make deps): %v", err)
	}
}

// createImage formats a logical-disk image file.
func createImage(t testing.TB, path string, size int64, p vld.Placement) {
	t.Helper()
	dev, err := device.OpenFile(path, device.FileOptions{Create: true, Size: size})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: testModel(t)}, p); err != nil {
		t.Fatal(err)
	}
}

// served is an image served in-process on a temporary mount point.
type served struct {
	dir string
	srv *Server
	ld  *Logical
	dev *device.File
	rec vld.RecoveryInfo
	t   testing.TB

	stopped bool
}

// serveImage opens img and mounts it on a new directory. Cleanup unmounts
// (with retries), closes the disk cleanly and checks it.
func serveImage(t testing.TB, img string) *served {
	t.Helper()
	needFUSE(t)
	dev, err := device.OpenFile(img, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := logical.Open(dev, vld.Options{})
	if err != nil {
		dev.Close()
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Image: img, Logf: t.Logf}
	if testing.Verbose() {
		o.Debug = func(m string) { t.Log(m) }
	}
	ld := NewLogical(d)
	srv, err := Mount(dir, ld, o)
	if err != nil {
		d.Close()
		t.Fatalf("Mount: %v", err)
	}
	s := &served{dir: srv.Dir(), srv: srv, ld: ld, dev: dev, rec: d.Volume().Recovery(), t: t}
	t.Cleanup(s.stop)
	return s
}

func (s *served) disk() string { return s.srv.DiskPath() }

// stop unmounts cleanly, closes and checks the disk.
func (s *served) stop() {
	if s.stopped {
		return
	}
	s.stopped = true
	var err error
	for i := 0; i < 50; i++ {
		if err = s.srv.Unmount(); err == nil || errors.Is(err, ErrNotMounted) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil && !errors.Is(err, ErrNotMounted) {
		s.t.Errorf("unmount %s: %v", s.dir, err)
		fusermountLazy(s.dir)
	}
	s.srv.Wait()
	if err := s.ld.LogicalDisk().Check(); err != nil {
		s.t.Errorf("Check: %v", err)
	}
	if err := s.ld.Close(); err != nil {
		s.t.Errorf("Close: %v", err)
	}
}

// crash stops the server as a crash would: the connection is aborted and
// the image released without syncing or writing the tail record.
func (s *served) crash(t testing.TB) {
	t.Helper()
	s.stopped = true
	if err := s.srv.Abort(); err != nil {
		t.Fatal(err)
	}
	s.srv.Wait()
	if err := s.dev.Close(); err != nil { // drops the lock; the volume is abandoned
		t.Fatal(err)
	}
}

// clearDeadMount removes a FUSE mount whose server is gone, retrying while
// a loop device is still being released.
func clearDeadMount(t testing.TB, dir string) {
	t.Helper()
	for i := 0; i < 50; i++ {
		if unmounter().Unmount(dir, false) == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s stays mounted; detaching it lazily", dir)
	fusermountLazy(dir)
}

func fusermountLazy(dir string) { exec.Command("fusermount3", "-u", "-z", "--", dir).Run() }
