package profile_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// The block-device path for real, on a loop device (root only): a
// measurement writes only inside its region, and the data-safety rules
// refuse a vlfs volume, an ext4 file system (at the device's start or at
// the region's) and a mounted device, the last even with DestroyData.

const loopBytes = 8 << 20

// backing is the loop device's initial content: not zeros, so that a
// stray write shows, and no signature Identify knows.
func backing() []byte {
	b := make([]byte, loopBytes)
	for i := range b {
		b[i] = byte(i*7+i>>12) | 1
	}
	return b
}

// attachLoop attaches a file holding content as a loop device.
func attachLoop(t *testing.T, content []byte) (dev, img string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("attaching a loop device needs root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		t.Skip("losetup not installed")
	}
	img = filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, content, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device available: %v: %s", err, out)
	}
	dev = strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "--detach", dev).Run() })
	return dev, img
}

// tinyConfig is a measurement small enough for a test.
func tinyConfig(target string) profile.Config {
	return profile.Config{Grid: profile.Grid{SkipStepBytes: 4096, Skips: 9, ThinkStepMs: 0.2, Thinks: 2}, Repetitions: 2, Seed: 3, Target: target}
}

func TestLoopDeviceWritesOnlyItsRegion(t *testing.T) {
	want := backing()
	if what := profile.Identify(want[:profile.SignatureBytes]); what != "" {
		t.Fatalf("test pattern looks like %s", what)
	}
	dev, img := attachLoop(t, want)
	const off, region = 3 << 20, 1 << 20
	f, err := profile.OpenFile(dev, profile.FileOptions{Offset: off, Region: region})
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Measure(context.Background(), f, tinyConfig(dev))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if m := p.Meta; m.Kind != profile.KindBlockDev || m.Clock != profile.ClockWall || !m.Dsync || m.RegionOffsetBytes != off || m.RegionBytes != region {
		t.Errorf("meta %+v", m)
	}
	if _, err := os.Stat(dev); err != nil {
		t.Fatalf("the device was removed: %v", err)
	}
	exec.Command("blockdev", "--flushbufs", dev).Run()
	got, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got[:off], want[:off]); i >= 0 {
		t.Errorf("byte %d before the region was written", i)
	}
	if i := firstDiff(got[off+region:], want[off+region:]); i >= 0 {
		t.Errorf("byte %d after the region was written", off+region+i)
	}
	if bytes.Equal(got[off:off+region], want[off:off+region]) {
		t.Errorf("nothing was written inside the region")
	}
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func TestLoopDeviceRefusesVolumes(t *testing.T) {
	dev, _ := attachLoop(t, backing())
	open := func(o profile.FileOptions) error {
		f, err := profile.OpenFile(dev, o)
		if err == nil {
			f.Close()
		}
		return err
	}
	if err := open(profile.FileOptions{}); err != nil {
		t.Fatalf("a device holding nothing known: %v", err)
	}

	// A vlfs (VLD) volume, formatted through the device.
	d, err := device.OpenFile(dev, device.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := disk.Preset("st19101")
	if err != nil {
		t.Fatal(err)
	}
	err = vld.Format(d, vld.FormatOptions{Model: m})
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := open(profile.FileOptions{}); !errors.Is(err, profile.ErrUnsafe) || !strings.Contains(err.Error(), "vlfs") {
		t.Errorf("a vlfs volume without DestroyData: %v", err)
	}
	if err := open(profile.FileOptions{DestroyData: true}); err != nil {
		t.Errorf("a vlfs volume with DestroyData: %v", err)
	}

	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 not installed")
	}
	// ext4 at the device's start.
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", dev).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v: %s", err, out)
	}
	if err := open(profile.FileOptions{Offset: 4 << 20}); !errors.Is(err, profile.ErrUnsafe) || !strings.Contains(err.Error(), "ext") {
		t.Errorf("ext4 without DestroyData: %v", err)
	}

	// Mounted: refused even with DestroyData.
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "ext4", dev, mnt).CombinedOutput(); err != nil {
		t.Logf("cannot mount ext4 here (%v: %s): mounted case not tested", err, out)
	} else {
		err := open(profile.FileOptions{DestroyData: true})
		if out, uerr := exec.Command("umount", mnt).CombinedOutput(); uerr != nil {
			t.Errorf("umount: %v: %s", uerr, out)
		}
		if !errors.Is(err, profile.ErrUnsafe) || !strings.Contains(err.Error(), "mounted") {
			t.Errorf("a mounted device with DestroyData: %v", err)
		}
	}
	if err := open(profile.FileOptions{DestroyData: true}); err != nil {
		t.Errorf("ext4, unmounted, with DestroyData: %v", err)
	}
}

func TestLoopDeviceRefusesFileSystemAtRegion(t *testing.T) {
	if _, err := exec.LookPath("mkfs.ext4"); err != nil {
		t.Skip("mkfs.ext4 not installed")
	}
	// An ext4 image placed 2 MiB into the device, as a partition's would
	// be: the device's first bytes say nothing, the region's do.
	fsImg := filepath.Join(t.TempDir(), "fs")
	if err := os.WriteFile(fsImg, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", fsImg).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v: %s", err, out)
	}
	fs, err := os.ReadFile(fsImg)
	if err != nil {
		t.Fatal(err)
	}
	content := backing()
	copy(content[2<<20:], fs)
	dev, _ := attachLoop(t, content)
	if f, err := profile.OpenFile(dev, profile.FileOptions{Offset: 2 << 20}); !errors.Is(err, profile.ErrUnsafe) {
		if err == nil {
			f.Close()
		}
		t.Errorf("ext4 at the region's start: %v", err)
	}
	f, err := profile.OpenFile(dev, profile.FileOptions{Offset: 5 << 20})
	if err != nil {
		t.Fatalf("a region past the file system: %v", err)
	}
	f.Close()
}
