package vlfs

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

func TestNeedsOldBytes(t *testing.T) {
	const bs = 4096
	for _, c := range []struct {
		name                string
		lbn, off, end, size uint64
		want                bool
	}{
		{"the whole block", 1, 4096, 8192, 10000, false},
		{"from the start to past the end of the file", 1, 4096, 5000, 4500, false},
		{"from the start to the end of the file exactly", 1, 4096, 4500, 4500, false},
		{"from the start, short of the end of the file", 1, 4096, 4400, 4500, true},
		{"from inside, the bytes before in the file", 1, 4100, 8192, 4500, true},
		{"from inside a block wholly past the end", 1, 4100, 4200, 4000, false},
		{"inside, the file ends before the write", 1, 4200, 4300, 4150, true},
		{"the middle of a file", 0, 10, 20, 100000, true},
		{"an empty file", 0, 10, 20, 0, false},
	} {
		if got := needsOldBytes(c.lbn, bs, c.off, c.end, c.size); got != c.want {
			t.Errorf("%s: needsOldBytes(lbn %d, [%d, %d), size %d) = %v, want %v", c.name, c.lbn, c.off, c.end, c.size, got, c.want)
		}
	}
}

// TestAppendReadsNothing: an append that starts at a block's start and
// reaches past the end of the file (what the kernel's writeback cache
// sends for a partial last page) needs none of the block's old bytes:
// they are past the end. It used to read the block, under FS.mu.
func TestAppendReadsNothing(t *testing.T) {
	im := newImage(t, 64<<20)
	fs := im.fs
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	old := bytes.Repeat([]byte{'o'}, 5000)
	must(fs.Write(f.Ino, 0, old)).ok(t)
	must(0, fs.Sync()).ok(t)
	r0 := fs.Stats().Vol.Reads
	tail := bytes.Repeat([]byte{'n'}, 6000-4096)
	must(fs.Write(f.Ino, 4096, tail)).ok(t)
	if r := fs.Stats().Vol.Reads - r0; r != 0 {
		t.Errorf("the append read %d blocks; bytes past the end of the file need no read", r)
	}
	want := append(old[:4096:4096], tail...)
	got := make([]byte, 8000)
	n := must(fs.Read(f.Ino, 0, got)).ok(t)
	if !bytes.Equal(got[:n], want) {
		t.Fatalf("read %d bytes, not what was written", n)
	}
	im.remount()
	n = must(im.fs.Read(f.Ino, 0, got)).ok(t)
	if !bytes.Equal(got[:n], want) {
		t.Fatalf("after a remount: read %d bytes, not what was written", n)
	}
}

// TestPartialWriteReadsWithoutLock: a write into the middle of a block on
// disk reads the block's other bytes with FS.mu released (a chmod of
// another file goes through meanwhile), and the write lands on them.
// Before, it read them under FS.mu.
func TestPartialWriteReadsWithoutLock(t *testing.T) {
	c := newColdFile(t)
	bs := c.im.fs.geo.bs
	if n := c.unlockedLoad(t, "a write into the middle of block 1", func(fs *FS) error {
		_, err := fs.Write(c.f, int64(bs)+10, []byte("new"))
		return err
	}); n != 1 {
		t.Errorf("%d unlocked data loads counted, want 1", n)
	}
	want := bytes.Clone(c.old)
	copy(want[bs+10:], "new")
	readBackRemount(t, c.im, c.f, want)
}

// TestPartialWritePreReadRaces: while a partial write's read of the old
// block is out without FS.mu, another write changes that block, either
// only buffered or committed (moved elsewhere). The copy read is stale
// then and must not be taken: both writes' bytes must be in the file.
func TestPartialWritePreReadRaces(t *testing.T) {
	for _, commit := range []bool{false, true} {
		t.Run(fmt.Sprintf("commit=%v", commit), func(t *testing.T) {
			im := newImage(t, 64<<20)
			fs := im.fs
			bs := fs.geo.bs
			f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
			want := bytes.Repeat([]byte{'o'}, bs)
			must(fs.Write(f.Ino, 0, want)).ok(t)
			must(0, fs.Sync()).ok(t)
			var fired atomic.Bool
			fs.afterUnlockedRead = func() {
				if !fired.CompareAndSwap(false, true) {
					return
				}
				must(fs.Write(f.Ino, 100, []byte("other"))).ok(t)
				if commit {
					must(0, fs.Sync()).ok(t)
				}
			}
			must(fs.Write(f.Ino, 10, []byte("first"))).ok(t)
			fs.afterUnlockedRead = nil
			if !fired.Load() {
				t.Fatal("no unlocked read happened: the test no longer tests one")
			}
			copy(want[100:], "other")
			copy(want[10:], "first")
			got := make([]byte, bs)
			must(fs.Read(f.Ino, 0, got)).ok(t)
			if !bytes.Equal(got, want) {
				t.Fatalf("read %q..., want both writes", got[:110])
			}
			must(0, fs.Sync()).ok(t)
			im.remount()
			must(im.fs.Read(f.Ino, 0, got)).ok(t)
			if !bytes.Equal(got, want) {
				t.Fatalf("after a remount: read %q..., want both writes", got[:110])
			}
		})
	}
}

// TestPartialWriteOldVersionReadsLocked: images without data checksums
// (before version 4) keep the locked read: their pointers do not name the
// content, so a block rewritten in place could not be told apart.
func TestPartialWriteOldVersionReadsLocked(t *testing.T) {
	im := mountImage(t, newFormattedVersion(t, 64<<20, ondisk.FSVersionRecords), Options{Logf: t.Logf})
	fs := im.fs
	f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	must(fs.Write(f.Ino, 0, bytes.Repeat([]byte{'o'}, fs.geo.bs))).ok(t)
	must(0, fs.Sync()).ok(t)
	must(fs.Write(f.Ino, 10, []byte("x"))).ok(t)
	if n := fs.Stats().UnlockedDataLoads; n != 0 {
		t.Errorf("%d unlocked data loads on version %d, want 0", n, ondisk.FSVersionRecords)
	}
	got := make([]byte, 12)
	must(fs.Read(f.Ino, 0, got)).ok(t)
	if string(got) != "ooooooooooxo" {
		t.Fatalf("read %q", got)
	}
}

// TestTruncateReadsWithoutLock: a truncate to a size inside a block on
// disk keeps the block's bytes before the size; it reads them with FS.mu
// released (a chmod of another file goes through meanwhile), and the
// bytes past the size read as zeros after an extension. Before, it read
// the block under FS.mu (zeroTailLocked).
func TestTruncateReadsWithoutLock(t *testing.T) {
	c := newColdFile(t)
	bs := c.im.fs.geo.bs
	size := uint64(bs + 10)
	if n := c.unlockedLoad(t, "a truncate inside block 1", func(fs *FS) error {
		_, err := fs.SetAttr(c.f, SetAttr{Mask: SetSize, Size: size})
		return err
	}); n != 1 {
		t.Errorf("%d unlocked data loads counted, want 1", n)
	}
	must(c.im.fs.SetAttr(c.f, SetAttr{Mask: SetSize, Size: uint64(2 * bs)})).ok(t) // the tail reads as zeros
	want := make([]byte, 2*bs)
	copy(want, c.old[:size])
	readBackRemount(t, c.im, c.f, want)
}

// TestTruncateWalksWithoutLock: a truncate that frees blocks behind an
// indirect block not in memory loads it with FS.mu released (a chmod of
// another file goes through meanwhile), and the file is empty after.
// Before, the truncate's walk read it under FS.mu.
func TestTruncateWalksWithoutLock(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	bs := im.fs.geo.bs
	behind := int64(ondisk.NumDirect+5) * int64(bs) // a block behind the first indirect leaf
	must(im.fs.Write(f.Ino, behind, bytes.Repeat([]byte{'o'}, bs))).ok(t)
	must(0, im.fs.Sync()).ok(t)
	im.coldRemount()
	fs := im.fs
	must(fs.GetAttr(f.Ino)).ok(t) // the inode block of both: the truncate's first read is the leaf
	loadsWithoutLock(t, gate, fs, other.Ino, 0, "a truncate behind an indirect leaf", func() error {
		_, err := fs.SetAttr(f.Ino, SetAttr{Mask: SetSize, Size: 0})
		return err
	})
	if a := must(fs.GetAttr(f.Ino)).ok(t); a.Size != 0 || a.Blocks != 0 {
		t.Fatalf("after the truncate: size %d, %d blocks", a.Size, a.Blocks)
	}
	must(0, im.fs.Sync()).ok(t)
	im.remount()
	if a := must(im.fs.GetAttr(f.Ino)).ok(t); a.Size != 0 || a.Blocks != 0 {
		t.Fatalf("after a remount: size %d, %d blocks", a.Size, a.Blocks)
	}

	// A size inside the last block of the first leaf, the file going on
	// into the next leaf: the kept block's own leaf is loaded first (not
	// only the next one, whose blocks are freed), so that the bytes kept
	// are read without FS.mu too.
	edge := int64(im.fs.geo.direct+im.fs.geo.per-1) * int64(bs)
	must(im.fs.Write(f.Ino, edge, bytes.Repeat([]byte{'o'}, 2*bs))).ok(t)
	must(0, im.fs.Sync()).ok(t)
	im.coldRemount()
	fs = im.fs
	must(fs.GetAttr(f.Ino)).ok(t)
	loads := fs.Stats().UnlockedDataLoads
	must(fs.SetAttr(f.Ino, SetAttr{Mask: SetSize, Size: uint64(edge) + 10})).ok(t)
	if n := fs.Stats().UnlockedDataLoads - loads; n != 1 {
		t.Errorf("a truncate inside the last block of a leaf: %d unlocked data loads, want 1", n)
	}
	got := make([]byte, 20)
	n := must(fs.Read(f.Ino, edge, got)).ok(t)
	if string(got[:n]) != "oooooooooo" {
		t.Fatalf("after a truncate to 10 bytes into the block: read %q", got[:n])
	}
}

// TestFallocateWalksWithoutLock: an allocating fallocate over holes behind
// an indirect leaf looks them up through the leaf; it loads it with FS.mu
// released first. Before, the look-up read the leaf under FS.mu.
func TestFallocateWalksWithoutLock(t *testing.T) {
	for _, mode := range []uint32{0, FallocKeepSize} {
		gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
		im := mountImage(t, gate, Options{Logf: t.Logf})
		t.Cleanup(gate.free)
		other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
		f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
		bs := int64(im.fs.geo.bs)
		behind := int64(ondisk.NumDirect+5) * bs // a block behind the first indirect leaf
		data := bytes.Repeat([]byte{'o'}, int(bs))
		must(im.fs.Write(f.Ino, behind, data)).ok(t)
		must(im.fs.Write(f.Ino, behind+8*bs, data)).ok(t)
		must(0, im.fs.Sync()).ok(t)
		im.coldRemount()
		fs := im.fs
		must(fs.GetAttr(f.Ino)).ok(t) // the inode block of both: the fallocate's first read is the leaf
		name := fmt.Sprintf("fallocate mode %#x behind an indirect leaf", mode)
		loadsWithoutLock(t, gate, fs, other.Ino, 0, name, func() error {
			return fs.Fallocate(f.Ino, mode, behind-2*bs, 12*bs)
		})
		// The range's 12 blocks (11 with the size kept: the file ends 9
		// blocks past the first written one), and the leaf.
		want := int64(12 + 1)
		if mode == FallocKeepSize {
			want = 11 + 1
		}
		a := must(fs.GetAttr(f.Ino)).ok(t)
		if got := int64(a.Blocks) * 512 / bs; got != want {
			t.Fatalf("%s: %d blocks after it, want %d", name, got, want)
		}
		must(0, fs.Sync()).ok(t)
		im.remount()
		got := make([]byte, bs)
		for _, off := range []int64{behind, behind + 8*bs} {
			n := must(im.fs.Read(f.Ino, off, got)).ok(t)
			if !bytes.Equal(got[:n], data) {
				t.Fatalf("%s: the block at %d changed", name, off)
			}
		}
	}
}

// TestPunchReadsWithoutLock: punching or zeroing bytes inside a block on
// disk keeps the block's other bytes; each reads them with FS.mu
// released (a chmod of another file goes through meanwhile). Before, the
// partial block was read under FS.mu (zeroPartLocked).
func TestPunchReadsWithoutLock(t *testing.T) {
	for _, mode := range []uint32{FallocPunchHole | FallocKeepSize, FallocZeroRange} {
		t.Run(fmt.Sprintf("mode=%#x", mode), func(t *testing.T) {
			c := newColdFile(t)
			bs := c.im.fs.geo.bs
			c.unlockedLoad(t, "a punch inside block 1", func(fs *FS) error {
				return fs.Fallocate(c.f, mode, int64(bs)+10, 10)
			})
			want := bytes.Clone(c.old)
			clear(want[bs+10 : bs+20])
			readBackRemount(t, c.im, c.f, want)
		})
	}
}

// coldFile is a gated image holding other (empty) and f (two blocks of
// 'o', committed), mounted cold with only their inode block in memory:
// the first device read of an operation on f's bytes is a data block.
type coldFile struct {
	im       *testImage
	gate     *opGate
	other, f Ino
	old      []byte // f's contents
}

func newColdFile(t *testing.T) coldFile {
	t.Helper()
	gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	c := coldFile{im: im, gate: gate}
	c.other = must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t).Ino
	c.f = must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t).Ino
	c.old = bytes.Repeat([]byte{'o'}, 2*im.fs.geo.bs)
	must(im.fs.Write(c.f, 0, c.old)).ok(t)
	must(0, im.fs.Sync()).ok(t)
	im.coldRemount()
	must(im.fs.GetAttr(c.f)).ok(t) // the inode block of both
	return c
}

// unlockedLoad runs op as loadsWithoutLock does (its device read must
// leave FS.mu free: a chmod of other goes through meanwhile) and returns
// how many unlocked data loads it counted.
func (c coldFile) unlockedLoad(t *testing.T, name string, op func(fs *FS) error) int64 {
	t.Helper()
	fs := c.im.fs
	loads := fs.Stats().UnlockedDataLoads
	loadsWithoutLock(t, c.gate, fs, c.other, 0, name, func() error { return op(fs) })
	return fs.Stats().UnlockedDataLoads - loads
}

// readBackRemount is readBack, then again after a commit and a remount.
func readBackRemount(t *testing.T, im *testImage, ino Ino, want []byte) {
	t.Helper()
	readBack(t, im.fs, ino, want)
	must(0, im.fs.Sync()).ok(t)
	im.remount()
	readBack(t, im.fs, ino, want)
}

// lockWatch is a device that counts the reads issued while FS.mu is held
// (the test runs one operation at a time, so a held FS.mu is the reader's).
type lockWatch struct {
	device.Device
	fs     *FS
	locked atomic.Int64
}

func (w *lockWatch) ReadAt(p []byte, off int64) (int, error) {
	if fs := w.fs; fs != nil {
		if fs.mu.TryLock() {
			fs.mu.Unlock()
		} else {
			w.locked.Add(1)
		}
	}
	return w.Device.ReadAt(p, off)
}

// TestTruncateWarmsEveryLeaf: a truncate over more leaves than one
// deferred-load budget covers (40, one block in each) loads every leaf
// with FS.mu released; before, the leaves past the first 16 loaded under
// it.
func TestTruncateWarmsEveryLeaf(t *testing.T) {
	w := &lockWatch{Device: newFormatted(t, 256<<20)}
	im := mountImage(t, w, Options{Logf: t.Logf})
	f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	bs := int64(im.fs.geo.bs)
	per, direct := int64(im.fs.geo.per), int64(im.fs.geo.direct)
	for k := range int64(40) {
		must(im.fs.Write(f.Ino, (direct+k*per)*bs, bytes.Repeat([]byte{'o'}, int(bs)))).ok(t)
	}
	must(0, im.fs.Sync()).ok(t)
	im.coldRemount()
	fs := im.fs
	must(fs.GetAttr(f.Ino)).ok(t)
	w.fs = fs
	must(fs.SetAttr(f.Ino, SetAttr{Mask: SetSize, Size: 0})).ok(t)
	w.fs = nil
	if n := w.locked.Load(); n != 0 {
		t.Fatalf("the truncate read %d blocks with FS.mu held", n)
	}
	if a := must(fs.GetAttr(f.Ino)).ok(t); a.Size != 0 || a.Blocks != 0 {
		t.Fatalf("after the truncate: size %d, %d blocks", a.Size, a.Blocks)
	}
	must(0, fs.Sync()).ok(t)
	im.remount()
}
