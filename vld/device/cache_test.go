package device

import (
	"bytes"
	"testing"
)

// TestDropCacheKeepsData: the advice changes no byte, whether the pages
// are dirty or clean, and on a closed file it is a no-op.
func TestDropCacheKeepsData(t *testing.T) {
	d, err := OpenFile(newImage(t, 1<<20), FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("vlfs"), 64<<10)
	if _, err := d.WriteAt(want, 0); err != nil {
		t.Fatal(err)
	}
	for _, flush := range []bool{false, true} { // dirty pages, then clean ones
		if flush {
			if err := d.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.DropCache(0, d.Size()); err != nil {
			t.Fatalf("DropCache (flushed %v): %v", flush, err)
		}
		got := make([]byte, len(want))
		if _, err := d.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("after DropCache (flushed %v): %v, equal %v", flush, err, bytes.Equal(got, want))
		}
	}
	var _ CacheDropper = d
	DropCache(NewMem(4096), 0, 4096) // a device without a page cache: nothing to do
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.DropCache(0, 4096); err != nil {
		t.Fatalf("DropCache after Close: %v", err)
	}
}
