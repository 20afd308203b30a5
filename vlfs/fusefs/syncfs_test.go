package fusefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/internal/loopdev"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// TestSyncFSOverFuseblk: mounted as fuseblk over a loop device
// (Options.BlockDevice, `vlfs mount -o blkdev`), syncfs(2) reaches vlfs and
// makes a file written without fsync durable: a copy of the image taken
// right after it holds the file. Mounted as plain fuse, the kernel never
// sends it, and the same copy lacks the file (the background commit is an
// hour away): the limit docs/durability.md states for such mounts.
func TestSyncFSOverFuseblk(t *testing.T) {
	if err := loopdev.Available(); err != nil {
		t.Skipf("fuseblk mounts need a loop device: %v", err)
	}
	data := bytes.Repeat([]byte("synced by syncfs "), 1000)
	for _, blk := range []bool{true, false} {
		t.Run(map[bool]string{true: "fuseblk", false: "fuse"}[blk], func(t *testing.T) {
			img := filepath.Join(t.TempDir(), "vlfs.img")
			fstest.Mkfs(t, img, 0, "")
			o := fstest.Options{Image: img, FS: vlfs.Options{FlushInterval: time.Hour}}
			if blk {
				loop, err := loopdev.Attach(img, false)
				if err != nil {
					t.Fatal(err)
				}
				defer loop.Close()
				o.Fuse = fusefs.Options{BlockDevice: loop.Path}
			}
			m := fstest.MountFS(t, o)
			if typ, _, _ := fusefs.MountType(m.Dir); blk && typ != "fuseblk.vlfs" || !blk && typ != "fuse.vlfs" {
				t.Fatalf("mounted as %q", typ)
			}
			if err := os.WriteFile(filepath.Join(m.Dir, "f"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := unix.Open(m.Dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(d)
			if err := unix.Syncfs(d); err != nil {
				t.Fatalf("syncfs: %v", err)
			}
			b, err := os.ReadFile(img)
			if err != nil {
				t.Fatal(err)
			}
			fs, err := vlfs.Mount(device.MemFrom(b), vlfs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer fs.Close()
			a, err := fs.Lookup(vlfs.RootIno, "f")
			if !blk {
				if err == nil {
					t.Fatal("plain fuse: the file is durable after syncfs; the kernel now sends SYNCFS, update docs/durability.md")
				}
				return
			}
			if err != nil {
				t.Fatalf("after syncfs the copy lacks the file: %v", err)
			}
			got := make([]byte, len(data)+1)
			n, err := fs.Read(a.Ino, 0, got)
			if err != nil || !bytes.Equal(got[:n], data) {
				t.Fatalf("after syncfs the copy's file reads %d bytes (%v), want %d", n, err, len(data))
			}
			if n := m.Server.Report().FUSE["syncfs"].Count; n == 0 {
				t.Fatal("no SYNCFS request counted")
			}
		})
	}
}
