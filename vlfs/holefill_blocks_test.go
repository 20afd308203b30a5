package vlfs

import (
	"testing"
	"time"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestHoleFillKeepsBlockCount: under kernel times (FUSE's writeback cache)
// a write inside the file's size leaves the inode's times and size alone,
// but one that fills a hole below an indirect block adds a block to the
// inode's count. The record must still be written at the next commit:
// the data's write-out changes only the leaf, so if the count's change did
// not mark the record changed the image kept the old count ("N blocks
// counted, record says N-1" from fsck), as seen under a FUSE mount.
func TestHoleFillKeepsBlockCount(t *testing.T) {
	for _, c := range []struct {
		name string
		size int // bytes written into the hole
		wt   int // Options.WriteThroughBytes
	}{
		{"buffered", 4096, 0},
		{"partial", 100, 0},
		{"writethrough", 64 << 10, 64 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			im := mountImage(t, newFormattedVersion(t, 64<<20, ondisk.FSVersionNodeMap), Options{Logf: t.Logf, FlushInterval: time.Hour, WriteThroughBytes: int64(c.wt)})
			fs := im.fs
			fs.SetKernelTimes(true)
			a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
			blk := make([]byte, 4096)
			blk[0] = 1
			// Blocks 1024 and 1100: both under one leaf of the
			// double-indirect root (past 12 direct and 509
			// single-indirect blocks), a numbered node under the node
			// map, so that writing it changes no pointer in the inode;
			// a hole between them.
			must(fs.Write(a.Ino, 1024*4096, blk)).ok(t)
			must(fs.Write(a.Ino, 1100*4096, blk)).ok(t)
			must(0, fs.Fsync(a.Ino, false)).ok(t)
			im.check()
			// Fill part of the hole: inside the size, the leaf exists.
			must(fs.Write(a.Ino, 1040*4096, make([]byte, c.size))).ok(t)
			must(0, fs.Fsync(a.Ino, false)).ok(t)
			want := must(fs.GetAttr(a.Ino)).ok(t).Blocks
			// The image as committed, as fsck sees it: before the fix,
			// "inode 2: 6 blocks counted, record says 5".
			if err := fs.Close(); err != nil {
				t.Fatal(err)
			}
			im.mount()
			im.check()
			if got := must(im.fs.GetAttr(a.Ino)).ok(t).Blocks; got != want {
				t.Fatalf("st_blocks %d after remount, %d before", got, want)
			}
		})
	}
}
