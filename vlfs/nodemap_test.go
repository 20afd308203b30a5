package vlfs

import (
	"fmt"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestOverwriteCommitBlocks: what a 4 KiB overwrite deep in a file (below
// the double-indirect root) costs its fsync, in blocks written. By address
// the leaf's move rewrites the double-indirect block and the inode block;
// through the node map only the leaf's map entry changes, and the inode
// block is written only for the times the file system stamps itself.
func TestOverwriteCommitBlocks(t *testing.T) {
	for _, c := range []struct {
		version     uint32
		kernelTimes bool
		want        int64 // blocks: data, leaf, [double indirect], [inode block], log entry
	}{
		{ondisk.FSVersionAddr, false, 5},
		{ondisk.FSVersionAddr, true, 5},
		{ondisk.FSVersionNodeMap, false, 5}, // data, leaf, inode block, a log entry each for two map pieces
		{ondisk.FSVersionNodeMap, true, 3},
		{ondisk.FSVersionRecords, false, 2}, // data, one log entry holding the record
		{ondisk.FSVersionRecords, true, 2},
	} {
		t.Run(fmt.Sprintf("v%d/kernelTimes=%v", c.version, c.kernelTimes), func(t *testing.T) {
			mem := device.NewMem(64 << 20)
			if err := Mkfs(mem, MkfsOptions{Model: testModel(t), Version: c.version}); err != nil {
				t.Fatal(err)
			}
			dev := &countingDev{Device: mem}
			im := mountImage(t, dev, Options{FlushInterval: time.Hour})
			fs := im.fs
			fs.SetKernelTimes(c.kernelTimes)
			a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
			blk := make([]byte, 4096)
			off := int64(4 << 20) // block 1024: past 12 direct and 509 single-indirect blocks
			must(fs.Write(a.Ino, off, blk)).ok(t)
			must(0, fs.Fsync(a.Ino, false)).ok(t)
			for i := range 3 {
				blk[0] = byte(i + 1)
				b0, by0, s0 := dev.blocks.Load(), dev.bytes.Load(), fs.Stats().Vol.SectorsWritten
				must(fs.Write(a.Ino, off, blk)).ok(t)
				must(0, fs.Fsync(a.Ino, false)).ok(t)
				if got := dev.blocks.Load() - b0; got != c.want {
					t.Fatalf("overwrite %d: its fsync wrote %d blocks, want %d", i, got, c.want)
				}
				// The device is given whole blocks (a short write makes
				// the host read the page first); the simulated disk is
				// charged a sector-granular entry's sectors alone.
				if by := dev.bytes.Load() - by0; by != c.want*4096 {
					t.Fatalf("overwrite %d: its fsync gave the device %d bytes, want %d whole blocks", i, by, c.want)
				}
				if sec := fs.Stats().Vol.SectorsWritten - s0; sec >= c.want*8 {
					t.Fatalf("overwrite %d: its fsync was charged %d sectors, want fewer than %d (sector entries)", i, sec, c.want*8)
				}
			}
			// One leaf under the double-indirect root; the root is named
			// by address in both versions.
			wantNodes := int64(0)
			if c.version >= ondisk.FSVersionNodeMap {
				wantNodes = 1
			}
			if st := fs.Stats(); st.FSVersion != c.version || st.Nodes != wantNodes {
				t.Fatalf("stats: version %d, nodes %d; want %d, %d", st.FSVersion, st.Nodes, c.version, wantNodes)
			}
			im.remount()
			got := make([]byte, 4096)
			must(im.fs.Read(a.Ino, off, got)).ok(t)
			if got[0] != 3 {
				t.Fatalf("after remount: first byte %d, want 3", got[0])
			}
		})
	}
}
