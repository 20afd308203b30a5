package loopdev

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestAttachAutoclear: the device names the file while held, and detaches
// itself once the last holder closes it.
func TestAttachAutoclear(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	img := filepath.Join(t.TempDir(), "img")
	if err := os.WriteFile(img, make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := Attach(img, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := BackingFile(d.Path); got != img {
		t.Fatalf("%s is backed by %q, want %q", d.Path, got, img)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if BackingFile(d.Path) == "" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s still backed by %q after its last close", d.Path, BackingFile(d.Path))
}
