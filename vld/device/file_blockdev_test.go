package device

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("no loop device available: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "--detach", dev).Run() })
	return dev
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
