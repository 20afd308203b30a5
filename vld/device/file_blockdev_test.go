package device

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/internal/loopdev"
)

// loopDevice attaches a loop device to a fresh image of size bytes filled
// with pattern(size, 5), or skips when that needs privileges we lack.
func loopDevice(t *testing.T, size int) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("attaching a loop device needs root")
	}
	if _, err := exec.LookPath("losetup"); err != nil {
		t.Skip("losetup not installed")
	}
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, pattern(size, 5), 0o600); err != nil {
		t.Fatal(err)
	}
	return attachLoop(t, img)
}

func TestBlockDevice(t *testing.T) {
	const size = 1 << 20
	dev := loopDevice(t, size)
	if _, err := OpenFile(dev, FileOptions{Create: true, Size: size / 2}); !errors.Is(err, ErrBadOptions) {
		t.Fatalf("resizing a block device: %v, want ErrBadOptions", err)
	}
	for _, o := range []FileOptions{{}, {Direct: true}} {
		d, err := OpenFile(dev, o)
		if err != nil {
			t.Fatal(err)
		}
		if d.Size() != size {
			t.Fatalf("Size = %d, want %d", d.Size(), size)
		}
		got := make([]byte, 1000)
		if _, err := d.ReadAt(got, 3000); err != nil || !bytes.Equal(got, pattern(size, 5)[3000:4000]) {
			t.Fatalf("read from %s: %v", dev, err)
		}
		mustWrite(t, d, []byte("block"), size-5)
		if err := d.Flush(); err != nil {
			t.Fatal(err)
		}
		if _, err := d.WriteAt([]byte("x"), size); !errors.Is(err, ErrOutOfRange) {
			t.Fatalf("write past the device: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoopDeviceLocksItsImage: an image opened through a loop device and
// the same image opened by path meet one lock, either way round, and so do
// two loop devices over one image; closing releases it (issue 29).
func TestLoopDeviceLocksItsImage(t *testing.T) {
	const size = 1 << 20
	dev := loopDevice(t, size)
	img := loopdev.BackingFile(dev)
	dev2 := attachLoop(t, img)
	cases := []struct{ first, second string }{
		{dev, img}, {img, dev}, {dev, dev2}, {dev2, dev}, {img, dev2},
	}
	for _, c := range cases {
		for _, ro := range []bool{false, true} {
			d, err := OpenFile(c.first, FileOptions{ReadOnly: ro})
			if err != nil {
				t.Fatalf("open %s: %v", c.first, err)
			}
			if _, err := OpenFile(c.second, FileOptions{}); !errors.Is(err, ErrLocked) {
				t.Errorf("%s open (read-only %v), then %s: %v, want ErrLocked", c.first, ro, c.second, err)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			d2, err := OpenFile(c.second, FileOptions{})
			if err != nil {
				t.Fatalf("%s after %s was closed: %v", c.second, c.first, err)
			}
			d2.Close()
		}
	}
}

// TestMountedBlockDeviceRefused: a block device a mounted file system
// holds (ext4 on a loop device here, which vlfs did not attach) is refused
// by O_EXCL, read-only too.
func TestMountedBlockDeviceRefused(t *testing.T) {
	const size = 8 << 20
	dev := loopDevice(t, size)
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", dev).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4: %v: %s", err, out)
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "ext4", dev, mnt).CombinedOutput(); err != nil {
		t.Skipf("mount: %v: %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	for _, ro := range []bool{false, true} {
		if _, err := OpenFile(dev, FileOptions{ReadOnly: ro}); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dev) {
			t.Errorf("open of a mounted %s (read-only %v): %v, want ErrLocked naming it", dev, ro, err)
		}
	}
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v: %s", err, out)
	}
	d, err := OpenFile(dev, FileOptions{})
	if err != nil {
		t.Fatalf("open after umount: %v", err)
	}
	d.Close()
}

// attachLoop attaches img to another loop device, detached at cleanup.
func attachLoop(t *testing.T, img string) string {
	t.Helper()
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no second loop device: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "--detach", dev).Run() })
	return dev
}
