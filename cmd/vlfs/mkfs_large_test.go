package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMkfsLargeSparse: a sparse 1 TiB image on the 4 TB zoned preset
// formats whole (not cut to a smaller disk), uses almost no host space,
// and checks clean. Both steps take well under a second: Format writes a
// clean tail record, so no open scans the 64 GiB log window.
func TestMkfsLargeSparse(t *testing.T) {
	img := filepath.Join(t.TempDir(), "big.img")
	code, out, errs := runCLI(t, "mkfs", "--disk", "st4000nm0023", "--size", "1TiB", "--sparse", "--quiet", img)
	if code != exitOK || !strings.Contains(out, "1 TiB, st4000nm0023") || errs != "" {
		t.Fatalf("mkfs: exit %d\n%s%s", code, out, errs)
	}
	st, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 1<<40 {
		t.Fatalf("image is %d bytes, want 1 TiB", st.Size())
	}
	if code, out, errs := runCLI(t, "fsck", img); code != exitOK || !strings.Contains(out, "clean") {
		t.Fatalf("fsck: exit %d\n%s%s", code, out, errs)
	}
}

// TestMkfsCutsToLargeDisk: a size beyond the 4 TB preset's capacity is cut
// to the capacity with a warning, as for the smaller presets.
func TestMkfsCutsToLargeDisk(t *testing.T) {
	img := filepath.Join(t.TempDir(), "big.img")
	code, out, errs := runCLI(t, "mkfs", "--disk", "st4000nm0023", "--size", "8TB", "--sparse", "--quiet", img)
	if code != exitOK || !strings.Contains(errs, "holds 3.64 TiB; the image is cut") {
		t.Fatalf("mkfs: exit %d\n%s%s", code, out, errs)
	}
	if st, err := os.Stat(img); err != nil || st.Size() != 4001120256000 {
		t.Fatalf("image: %v, %v; want 4,001,120,256,000 bytes", st, err)
	}
}
