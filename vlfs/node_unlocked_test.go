package vlfs

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// TestReadLoadsNodesWithoutLock: a read of a cold file whose indirect
// blocks are on disk only reads them with FS.mu released, so a chmod of
// another file goes on while the device works. Before, nodeLocked read
// them under FS.mu.
func TestReadLoadsNodesWithoutLock(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	bs := int64(im.fs.geo.bs)
	f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	// One block below the single-indirect root, one below a double
	// indirect root and its (numbered) leaf.
	offs := []int64{20 * bs, 2100 << 10}
	for i, off := range offs {
		must(im.fs.Write(f.Ino, off, bytes.Repeat([]byte{byte('a' + i)}, int(bs)))).ok(t)
	}
	must(0, im.fs.Sync()).ok(t)
	im.remount()
	fs := im.fs
	must(fs.GetAttr(f.Ino)).ok(t) // the inode itself is loaded
	must(fs.GetAttr(other.Ino)).ok(t)

	for i, off := range offs {
		gate.arm()
		got := make([]byte, bs)
		read := make(chan error, 1)
		go func() {
			_, err := fs.Read(f.Ino, off, got)
			read <- err
		}()
		gate.wait(t)
		mustBeFree(t, fs)
		must(fs.SetAttr(other.Ino, SetAttr{Mask: SetMode, Mode: 0o600 + uint32(i)})).ok(t)
		gate.free()
		must(0, <-read).ok(t)
		if want := bytes.Repeat([]byte{byte('a' + i)}, int(bs)); !bytes.Equal(got, want) {
			t.Fatalf("read at %d: first difference at %d", off, firstDiff(got, want))
		}
	}
	if n := fs.Stats().UnlockedNodeLoads; n < 3 {
		t.Errorf("%d indirect blocks loaded without FS.mu, want at least 3 (two roots and a leaf)", n)
	}
	im.check()
}
