package vlfs

import (
	"math/rand"
	"testing"
)

// TestOverwritesAt99Percent keeps overwriting and fsyncing one file that
// fills 98 % of a 32 MiB image. Each overwrite needs a new block until the
// commit frees the old one, and each commit a virtual-log entry inside the
// log window: once the head's window had no free block left, a checkpoint
// moved the window to the first track with any free block, which could
// hold fewer blocks than the entry, and the acknowledged write's fsync
// failed with ENOSPC although the disk had free blocks elsewhere.
func TestOverwritesAt99Percent(t *testing.T) {
	im := newImage(t, 32<<20)
	fs := im.fs
	st := must(fs.StatFS()).ok(t)
	n := int64(st.Bfree) - int64(st.Blocks)/50
	a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	chunk := make([]byte, 256<<10)
	for off := int64(0); off < n*4096; off += int64(len(chunk)) {
		if _, err := fs.Write(a.Ino, off, chunk[:min(int64(len(chunk)), n*4096-off)]); err != nil {
			t.Fatalf("filling: %v", err)
		}
	}
	if err := fs.Sync(); err != nil {
		t.Fatal(err)
	}
	seed := *seedFlag
	if seed == 0 {
		seed = 1
	}
	rng := rand.New(rand.NewSource(seed))
	blk := make([]byte, 4096)
	for i := 0; i < 3*int(n); i++ {
		blk[0] = byte(i)
		if _, err := fs.Write(a.Ino, rng.Int63n(n)*4096, blk); err != nil {
			t.Fatalf("overwrite %d at %.1f%% full: %v", i, 100*(1-float64(must(fs.StatFS()).ok(t).Bfree)/float64(st.Blocks)), err)
		}
		if err := fs.Fsync(a.Ino, true); err != nil {
			t.Fatalf("fsync of overwrite %d: %v", i, err)
		}
	}
	im.check()
}
