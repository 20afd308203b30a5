package vlfs

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/vlfs/vlfs/internal/scratch"
)

// TestWriteFsyncAllocatesNoBlocks guards the buffers a commit reuses
// (writeScratch, planScratch, and vld's commitScratch): a warm 4 KiB
// overwrite + fsync allocates the written block's buffer (it becomes the
// file's, then the recent cache's) and small bookkeeping, not a fresh
// buffer for each block the commit writes. Before the reuse it allocated
// 31.8 KiB per write+fsync (six 4 KiB buffers); since, about 6.3 KiB
// (BenchmarkWriteFsync/mem). The bound leaves room for a few small
// structures, not for one more block. The file reaches the double-indirect
// tree, so each commit writes data, leaf, parent, inode block and log
// entry; the contents are checked at the end and after a remount, as the
// reused buffers must never leak into what was written.
func TestWriteFsyncAllocatesNoBlocks(t *testing.T) {
	const (
		blocks = 1024 // 12 direct + 512 single-indirect + 500 under the double root
		ops    = 600
		bound  = 9 << 10 // bytes per write+fsync
	)
	im := newImage(t, 64<<20)
	fs := im.fs
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	want := make([]byte, blocks*4096)
	for i := range want {
		want[i] = byte(i / 4096)
	}
	must(fs.Write(f.Ino, 0, want)).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	block := make([]byte, 4096)
	step := func(i int) {
		lbn := (i * 389) % blocks // 389 is prime to 1024: every block in turn
		for j := range block {
			block[j] = byte(i + j)
		}
		copy(want[lbn*4096:], block)
		must(fs.Write(f.Ino, int64(lbn)*4096, block)).ok(t)
		must(0, fs.Fsync(f.Ino, false)).ok(t)
	}
	for i := range 50 { // warm the scratch and the caches
		step(i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 50; i < 50+ops; i++ {
		step(i)
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / ops
	t.Logf("%d bytes, %.1f allocations per write+fsync", per, float64(after.Mallocs-before.Mallocs)/ops)
	if per > bound {
		t.Errorf("a write+fsync allocated %d bytes, want at most %d: a commit allocates a fresh block again", per, bound)
	}
	verify := func(when string) {
		got := make([]byte, len(want))
		must(im.fs.Read(f.Ino, 0, got)).ok(t)
		if !bytes.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: byte %d (block %d) is %d, want %d", when, i, i/4096, got[i], want[i])
				}
			}
		}
	}
	verify("before remount")
	im.remount()
	verify("after remount")
}

// TestCommitOfManyPieces commits more inode-map pieces at once than the
// commit's scratch keeps (scratch.Keep): the pieces past it get buffers of
// their own, which must reach the log like the kept ones. A piece maps 381
// inode blocks of 16 inodes, so 110,000 new files dirty 19 pieces; after
// the commit and a remount every one of them is there.
func TestCommitOfManyPieces(t *testing.T) {
	if testing.Short() {
		t.Skip("110,000 creates")
	}
	im := newImage(t, 512<<20)
	const files = 110000
	for i := range files {
		must(im.fs.Create(RootIno, fmt.Sprintf("f%d", i), 0o644, 0, 0)).ok(t)
	}
	before := im.fs.vol.Stats()
	must(0, im.fs.Sync()).ok(t)
	after := im.fs.vol.Stats()
	if c, e := after.Commits-before.Commits, after.LogEntries-before.LogEntries; c != 1 || e <= scratch.Keep {
		t.Fatalf("the sync made %d commits of %d pieces, want one of more than %d", c, e, scratch.Keep)
	}
	im.remount()
	for i := range files {
		if _, err := im.fs.Lookup(RootIno, fmt.Sprintf("f%d", i)); err != nil {
			t.Fatalf("after remount, f%d: %v", i, err)
		}
	}
}
