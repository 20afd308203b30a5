package vlfs

import (
	"bytes"
	"errors"
	"testing"
)

// TestUnwrittenReservations (file-system version 5): fallocate's blocks
// are kept as unwritten pointers, so the commit after a 4 MiB fallocate
// writes no zero blocks (a few metadata blocks, not 1,024 data blocks);
// they read as zeros, count in st_blocks and as used in statfs, survive a
// remount (the walk counts them again), keep their space against other
// writers (ENOSPC for them, while writes into the reserved range still
// succeed), and a write into one, a punch or a truncate gives its space
// back. Check agrees with the count at every step.
func TestUnwrittenReservations(t *testing.T) {
	im := newImage(t, 32<<20)
	fs := im.fs
	bs := fs.geo.bs
	const blocks = 1024
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	must(0, fs.Sync()).ok(t)
	atRest(t, fs)
	before := must(fs.StatFS()).ok(t)
	w0 := fs.vol.Stats().BlocksWritten
	must(0, fs.Fallocate(f.Ino, 0, 0, int64(blocks*bs))).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	if w := fs.vol.Stats().BlocksWritten - w0; w > 16 {
		t.Fatalf("the commit after a fallocate of %d blocks wrote %d blocks", blocks, w)
	}
	if got := fs.Stats().Unwritten; got != blocks {
		t.Fatalf("%d unwritten blocks kept, want %d", got, blocks)
	}
	mid := must(fs.StatFS()).ok(t)
	if used := before.Bfree - mid.Bfree; used < blocks {
		t.Fatalf("statfs: %d blocks fewer free after reserving %d", used, blocks)
	}
	im.check()

	data := bytes.Repeat([]byte{0xa5}, bs)
	must(fs.Write(f.Ino, int64(5*bs), data)).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	if got := fs.Stats().Unwritten; got != blocks-1 {
		t.Fatalf("after a write into one: %d unwritten, want %d", got, blocks-1)
	}
	im.remount()
	fs = im.fs
	if got := fs.Stats().Unwritten; got != blocks-1 {
		t.Fatalf("after a remount: %d unwritten, want %d", got, blocks-1)
	}
	want := make([]byte, blocks*bs)
	copy(want[5*bs:], data)
	got := make([]byte, len(want))
	if n := must(fs.Read(f.Ino, 0, got)).ok(t); n != len(want) || !bytes.Equal(got, want) {
		t.Fatalf("after remount: %d bytes, first difference at %d", n, firstDiff(got[:n], want))
	}
	if a := must(fs.GetAttr(f.Ino)).ok(t); a.Blocks*512 < uint64(blocks*bs) || a.Blocks*512 > uint64((blocks+8)*bs) {
		t.Fatalf("st_blocks %d, want the %d reserved and the indirect blocks", a.Blocks, blocks*bs/512)
	}

	// The reservation holds against other writers: fill what is left.
	free := must(fs.StatFS()).ok(t).Bfree
	g := must(fs.Create(RootIno, "g", 0o644, 0, 0)).ok(t)
	var err error
	for i := int64(0); i < int64(free)+64 && err == nil; i++ {
		_, err = fs.Write(g.Ino, i*int64(bs), data)
		if err == nil && i%64 == 63 {
			err = fs.Fsync(g.Ino, false)
		}
	}
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("writing past the free space: %v, want ErrNoSpace", err)
	}
	for i := range 8 { // every reserved block may still be written
		must(fs.Write(f.Ino, int64((100+i*100)*bs), data)).ok(t)
	}
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	im.check()
	must(0, fs.Unlink(RootIno, "g")).ok(t)

	// A punch and a truncate give the space back.
	must(0, fs.Fallocate(f.Ino, FallocPunchHole|FallocKeepSize, int64(200*bs), int64(100*bs))).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	left := fs.Stats().Unwritten
	if left >= blocks-1-8 {
		t.Fatalf("after punching 100 blocks: %d unwritten", left)
	}
	must(fs.SetAttr(f.Ino, SetAttr{Mask: SetSize, Size: 0})).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	if got := fs.Stats().Unwritten; got != 0 {
		t.Fatalf("after truncating to 0: %d unwritten", got)
	}
	im.check()
}
