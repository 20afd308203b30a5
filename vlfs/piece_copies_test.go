package vlfs

import (
	"fmt"
	"testing"
	"time"
)

// TestPieceCopiesAtIdleAndUnmount (issue 34): the volume keeps what a
// commit logs in single entries until a checkpoint at rest copies it; a
// mount copies at idle time (a flush interval with nothing to commit) and
// at unmount, so that afterwards one damaged block of any piece loses no
// file: every copy is damaged in turn and the image still mounts with
// every file intact (and fsck clean once a read-write mount mends it).
func TestPieceCopiesAtIdleAndUnmount(t *testing.T) {
	dev := newFormatted(t, 16<<20)
	fs := must(Mount(noClose{dev}, Options{FlushInterval: 40 * time.Millisecond})).ok(t)
	files := map[string][]byte{}
	for i := range 20 {
		name := fmt.Sprintf("f%02d", i)
		a := must(fs.Create(RootIno, name, 0o644, 0, 0)).ok(t)
		files[name] = []byte(fmt.Sprintf("file %d ", i))
		must(fs.Write(a.Ino, 0, files[name])).ok(t)
		must(0, fs.Fsync(a.Ino, false)).ok(t)
	}
	if n := fs.vol.Stats().SingleCopyPieces; n == 0 {
		t.Fatal("no piece in a single block right after commits: nothing for the idle copy to do")
	}
	deadline := time.Now().Add(5 * time.Second)
	for fs.vol.Stats().SingleCopyPieces > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d pieces still in one block 5 s after the last change", fs.vol.Stats().SingleCopyPieces)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if fs.vol.Stats().PieceCopies == 0 {
		t.Fatal("no piece copies counted")
	}
	// A change after the idle copy is copied again at unmount.
	a := must(fs.Lookup(RootIno, "f03")).ok(t)
	files["f03"] = []byte("file 3 rewritten")
	must(fs.Write(a.Ino, 0, files["f03"])).ok(t)
	must(0, fs.Fsync(a.Ino, false)).ok(t)
	must(0, fs.Close()).ok(t)

	ro := must(Mount(noClose{dev}, Options{ReadOnly: true})).ok(t)
	copies := ro.vol.PieceCopyBlocks()
	if root, others := ro.vol.LogEntryBlocks(); root != 0 || len(others) != 0 {
		t.Fatalf("after unmount the log still holds entries (root %d, %d others)", root, len(others))
	}
	must(0, ro.Close()).ok(t)
	if len(copies) < 4 {
		t.Fatalf("%d piece copies after unmount", len(copies))
	}
	for _, addr := range copies {
		dev := imageCopy(t, dev)
		b := []byte{0}
		must(dev.ReadAt(b, int64(addr)*4096+500)).ok(t)
		b[0] ^= 0x10
		must(dev.WriteAt(b, int64(addr)*4096+500)).ok(t)
		fs2, err := Mount(noClose{dev}, Options{})
		if err != nil {
			t.Fatalf("copy at block %d damaged: mount: %v", addr, err)
		}
		for name, want := range files {
			in := must(fs2.Lookup(RootIno, name)).ok(t)
			readBack(t, fs2, in.Ino, want)
		}
		must(0, fs2.Close()).ok(t)
		if found := must(CheckDevice(noClose{dev}, Options{ReadOnly: true})).ok(t); len(found) != 0 {
			t.Fatalf("copy at block %d damaged: after a read-write mount fsck finds %v", addr, found)
		}
	}
}
