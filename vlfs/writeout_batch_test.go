package vlfs

import (
	"bytes"
	"testing"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestBatchWriteOutUnderChanges holds a large commit's batch of buffered
// data in flight (after the device took it, before the volume returned)
// and changes the files under it: a block overwritten, a file truncated
// and extended, a file unlinked and forgotten, a read of a flying block,
// a create. FS.mu must be free meanwhile, and after the commit and a
// remount every file must read as the changes left it: a change to a
// flying buffer in place (no copy) would be lost when the batch landed
// and unbuffered it.
func TestBatchWriteOutUnderChanges(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpWrite)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	fs := im.fs
	bs := int(fs.geo.bs)
	const blocks = 64 // per file; 4 files: past commitInlineBytes
	content := map[string][]byte{}
	for i, name := range []string{"over", "trunc", "gone", "still"} {
		a := must(fs.Create(RootIno, name, 0o644, 0, 0)).ok(t)
		data := bytes.Repeat([]byte{byte('a' + i)}, blocks*bs)
		must(fs.Write(a.Ino, 0, data)).ok(t)
		content[name] = data
	}
	ino := func(name string) Ino { return must(fs.Lookup(RootIno, name)).ok(t).Ino }

	gate.arm()
	synced := make(chan error, 1)
	go func() { synced <- fs.Sync() }()
	gate.wait(t)
	mustBeFree(t, fs)

	// A read of a flying block sees the buffered data.
	got := make([]byte, bs)
	must(fs.Read(ino("over"), int64(5*bs), got)).ok(t)
	if !bytes.Equal(got, content["over"][5*bs:6*bs]) {
		t.Fatalf("read of a block in flight: %q..., want %q...", got[:8], content["over"][:8])
	}
	// Overwrite part of a flying block.
	patch := []byte("changed while in flight")
	must(fs.Write(ino("over"), int64(3*bs+100), patch)).ok(t)
	copy(content["over"][3*bs+100:], patch)
	// Truncate into the flying blocks, then extend with new data.
	must(fs.SetAttr(ino("trunc"), SetAttr{Mask: SetSize, Size: uint64(10*bs + 7)})).ok(t)
	tail := bytes.Repeat([]byte{'T'}, bs)
	must(fs.Write(ino("trunc"), int64(20*bs), tail)).ok(t)
	c := append(content["trunc"][:10*bs+7:10*bs+7], make([]byte, 20*bs-(10*bs+7))...)
	content["trunc"] = append(c, tail...)
	// Free a file whose blocks fly.
	g := ino("gone")
	must(0, fs.Unlink(RootIno, "gone")).ok(t)
	fs.Forget(g, 2) // its create and the lookup above
	delete(content, "gone")
	must(fs.Create(RootIno, "new", 0o644, 0, 0)).ok(t)
	content["new"] = nil

	gate.free()
	must(0, <-synced).ok(t)
	st := fs.Stats()
	if st.UnlockedBatches == 0 || st.SupersededBlocks < blocks {
		t.Errorf("stats: %d unlocked batches, %d superseded blocks; want some, and at least %d", st.UnlockedBatches, st.SupersededBlocks, blocks)
	}
	must(0, fs.Sync()).ok(t)
	im.remount()
	for name, want := range content {
		a := must(im.fs.Lookup(RootIno, name)).ok(t)
		buf := make([]byte, len(want)+bs)
		n := must(im.fs.Read(a.Ino, 0, buf)).ok(t)
		if n != len(want) || !bytes.Equal(buf[:n], want) {
			t.Errorf("%s after remount: %d bytes, want %d; first difference at byte %d", name, n, len(want), firstDiff(buf[:n], want))
		}
	}
}

// TestWriterPastLimitHoldsNoLock: a write that takes the buffered data
// past the dirty limit writes half of it out before it returns, with
// FS.mu free during the I/O, so another file's change does not wait for
// it; when it returns, the buffered data is within the limit.
func TestWriterPastLimitHoldsNoLock(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpWrite)
	const limit = 256 << 10
	im := mountImage(t, gate, Options{Logf: t.Logf, DirtyLimitBytes: limit})
	t.Cleanup(gate.free)
	fs := im.fs
	big := must(fs.Create(RootIno, "big", 0o644, 0, 0)).ok(t)
	other := must(fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), (limit+64<<10)/16)

	gate.arm()
	wrote := make(chan error, 1)
	go func() {
		_, err := fs.Write(big.Ino, 0, data)
		wrote <- err
	}()
	gate.wait(t)
	mustBeFree(t, fs)
	must(fs.SetAttr(other.Ino, SetAttr{Mask: SetMode, Mode: 0o600})).ok(t)
	gate.free()
	must(0, <-wrote).ok(t)
	if st := fs.Stats(); st.DirtyBytes > limit || st.UnlockedBatches == 0 {
		t.Errorf("after the write: %d bytes buffered (limit %d), %d unlocked batches", st.DirtyBytes, limit, st.UnlockedBatches)
	}
	im.remount()
	got := make([]byte, len(data))
	if n := must(im.fs.Read(big.Ino, 0, got)).ok(t); n != len(data) || !bytes.Equal(got, data) {
		t.Fatalf("after remount: %d bytes, first difference at %d", n, firstDiff(got[:n], data))
	}
}

// TestCommitWritesReservationsUnlocked: before file-system version 5,
// blocks reserved by fallocate are written by a commit as zero blocks in
// batches without FS.mu, like buffered data. Before, the commit wrote them
// under FS.mu: stress-ng's fallocate of a gigabyte held every other
// operation for a second. A reserved block written while its zero block
// flies keeps the write, and after a remount the file reads as zeros
// around it. (Version 5 writes no zero blocks: TestUnwrittenReservations.)
func TestCommitWritesReservationsUnlocked(t *testing.T) {
	gate := newOpGate(newFormattedVersion(t, 64<<20, ondisk.FSVersionSums), device.OpWrite)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	fs := im.fs
	bs := int(fs.geo.bs)
	const blocks = 1024
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	other := must(fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	must(0, fs.Sync()).ok(t)
	must(0, fs.Fallocate(f.Ino, 0, 0, int64(blocks*bs))).ok(t)

	data := bytes.Repeat([]byte{0x5a}, bs)
	fsyncPastHeldBatch(t, gate, fs, f.Ino, other.Ino, 3, data)

	im.remount()
	want := make([]byte, blocks*bs)
	copy(want[3*bs:], data)
	got := make([]byte, len(want))
	if n := must(im.fs.Read(f.Ino, 0, got)).ok(t); n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("after remount: %d bytes, first difference at %d", n, firstDiff(got[:n], want))
	}
	if a := must(im.fs.GetAttr(f.Ino)).ok(t); a.Blocks*512 < uint64(blocks*bs) {
		t.Errorf("after remount: %d blocks of 512 bytes, want at least %d", a.Blocks, blocks*bs/512)
	}
	im.check()
}

// TestInPlaceWriteOutUnlocked: on an in-place volume the commit writes
// buffered data over its homes in batches with FS.mu released, as on an
// eager one: a chmod of another file goes through while a batch is held
// at the device, and a write into a block of the flying batch (which
// supersedes it) is what the file holds afterwards, at its home. Before,
// in-place write-out held FS.mu for the whole of it.
func TestInPlaceWriteOutUnlocked(t *testing.T) {
	mem := device.NewMem(64 << 20)
	if err := Mkfs(mem, MkfsOptions{Model: testModel(t), Placement: vld.PlaceInPlace}); err != nil {
		t.Fatal(err)
	}
	gate := newOpGate(mem, device.OpWrite)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	fs := im.fs
	bs := int(fs.geo.bs)
	const blocks = 512
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	other := must(fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	old := bytes.Repeat([]byte{0x11}, blocks*bs)
	must(fs.Write(f.Ino, 0, old)).ok(t)
	must(0, fs.Sync()).ok(t)
	homes := make([]uint64, blocks)
	fs.lock()
	in := fs.inodes[f.Ino]
	for i := range homes {
		homes[i] = must(fs.bmapLocked(in, uint64(i))).ok(t)
	}
	fs.unlock()

	// Overwrite it all, then commit with a batch held at the device.
	must(fs.Write(f.Ino, 0, bytes.Repeat([]byte{0x22}, blocks*bs))).ok(t)
	newer := bytes.Repeat([]byte{0x33}, bs)
	fsyncPastHeldBatch(t, gate, fs, f.Ino, other.Ino, 3, newer)

	im.remount()
	want := bytes.Repeat([]byte{0x22}, blocks*bs)
	copy(want[3*bs:], newer)
	got := make([]byte, len(want))
	if n := must(im.fs.Read(f.Ino, 0, got)).ok(t); n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("after remount: %d bytes, first difference at %d", n, firstDiff(got[:n], want))
	}
	im.fs.lock()
	in = im.fs.inodes[f.Ino]
	for i, h := range homes {
		if a := must(im.fs.bmapLocked(in, uint64(i))).ok(t); a != h {
			im.fs.unlock()
			t.Fatalf("block %d moved from its home %d to %d", i, h, a)
		}
	}
	im.fs.unlock()
}

// fsyncPastHeldBatch fsyncs f with the commit's first batch held at the
// device (gate, armed here): meanwhile FS.mu must be free, a chmod of
// other goes through and data is written over block lbn of f, a block of
// the flying batch. Then it lets the batch go, fsyncs again and requires
// unlocked batches to have been written.
func fsyncPastHeldBatch(t *testing.T, gate *opGate, fs *FS, f, other Ino, lbn int64, data []byte) {
	t.Helper()
	gate.arm()
	synced := make(chan error, 1)
	go func() { synced <- fs.Fsync(f, false) }()
	gate.wait(t)
	mustBeFree(t, fs)
	must(fs.SetAttr(other, SetAttr{Mask: SetMode, Mode: 0o600})).ok(t)
	must(fs.Write(f, lbn*int64(len(data)), data)).ok(t)
	gate.free()
	must(0, <-synced).ok(t)
	must(0, fs.Fsync(f, false)).ok(t)
	if st := fs.Stats(); st.UnlockedBatches == 0 {
		t.Errorf("the data was not written in unlocked batches: %+v", st)
	}
}
