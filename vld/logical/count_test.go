package logical

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld"
)

func TestLogicalMappedCount(t *testing.T) {
	d, _ := newTestLogical(t, "st19101", 16<<20, vld.Options{})
	if n := d.MappedCount(); n != 0 {
		t.Fatalf("fresh disk: %d mapped, want 0", n)
	}
	b := bytes.Repeat([]byte{7}, d.BlockSize())
	if err := d.Write(10, [][]byte{b, b, b}); err != nil {
		t.Fatal(err)
	}
	if err := d.Trim(11, 1); err != nil {
		t.Fatal(err)
	}
	if n := d.MappedCount(); n != 2 {
		t.Fatalf("after 3 writes and 1 trim: %d mapped, want 2", n)
	}
}
