package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// sumFixture is a version-4 image holding files whose blocks the tests
// damage on the device: each file's content is known.
type sumFixture struct {
	im    *testImage
	files map[string][]byte
	inos  map[string]Ino
}

// newSumFixture makes a version-4 image with a small file (direct
// pointers), a large one (its last blocks under the single indirect
// block) and a directory with entries.
func newSumFixture(t *testing.T) *sumFixture {
	t.Helper()
	im := mountImage(t, newFormattedVersion(t, 32<<20, ondisk.FSVersionSums), Options{Logf: t.Logf})
	x := &sumFixture{im: im, files: map[string][]byte{}, inos: map[string]Ino{}}
	for name, blocks := range map[string]int{"small": 3, "large": 20, "other": 2} {
		b := punchData(blocks*4096, byte(len(name)))
		ino := must(im.fs.Create(RootIno, name, 0o644, 0, 0)).ok(t).Ino
		must(im.fs.Write(ino, 0, b)).ok(t)
		x.files[name], x.inos[name] = b, ino
	}
	d := must(im.fs.Mkdir(RootIno, "dir", 0o755, 0, 0)).ok(t).Ino
	must(im.fs.Create(d, "entry", 0o644, 0, 0)).ok(t)
	x.inos["dir"] = d
	must(0, im.fs.Sync()).ok(t)
	return x
}

// addr is the address and checksum of block lbn of file name.
func (x *sumFixture) addr(t *testing.T, name string, lbn uint64) (uint64, uint32) {
	t.Helper()
	fs := x.im.fs
	fs.lock()
	defer fs.unlock()
	in := must(fs.getLocked(x.inos[name])).ok(t)
	a, sum, err := fs.bmapSumLocked(in, lbn)
	if err != nil || a == 0 {
		t.Fatalf("%s block %d: at %d, %v", name, lbn, a, err)
	}
	return a, sum
}

// damage changes block a of the closed image with fn.
func damageBlock(t *testing.T, dev device.Device, a uint64, fn func([]byte)) {
	t.Helper()
	b := make([]byte, 4096)
	must(dev.ReadAt(b, int64(a)*4096)).ok(t)
	fn(b)
	must(dev.WriteAt(b, int64(a)*4096)).ok(t)
}

// TestDataChecksums damages one data block in each way the issue names
// (a bit flipped, zeroed, random bytes, a stale older version) in a file's
// direct and indirect ranges: the damaged block reads as ErrChecksum (EIO)
// and is counted; every other block and file reads back intact.
func TestDataChecksums(t *testing.T) {
	cases := []struct {
		name, file string
		lbn        uint64
		damage     func(b []byte)
	}{
		{"bit flipped, direct", "small", 1, func(b []byte) { b[100] ^= 4 }},
		{"zeroed, direct", "small", 0, func(b []byte) { clear(b) }},
		{"random bytes, under the indirect block", "large", 15, func(b []byte) { copy(b[2000:], punchData(64, 99)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newSumFixture(t)
			a, _ := x.addr(t, c.file, c.lbn)
			x.im.coldRemount()
			x.im.fs.Close()
			x.im.fs = nil
			damageBlock(t, x.im.dev, a, c.damage)
			x.im.mount()
			x.expectDamage(t, c.file, c.lbn)
		})
	}
	t.Run("stale older version", func(t *testing.T) {
		x := newSumFixture(t)
		old, _ := x.addr(t, "other", 0)
		stale := make([]byte, 4096)
		must(x.im.dev.ReadAt(stale, int64(old)*4096)).ok(t)
		newer := bytes.Repeat([]byte("new!"), 1024)
		must(x.im.fs.Write(x.inos["other"], 0, newer)).ok(t)
		must(0, x.im.fs.Sync()).ok(t)
		x.files["other"] = append(newer, x.files["other"][4096:]...)
		a, _ := x.addr(t, "other", 0)
		if a == old {
			t.Fatal("the overwrite stayed in place")
		}
		x.im.fs.Close()
		x.im.fs = nil
		// The device lost the newer write: the block holds the old bytes,
		// which are a valid block of the same file.
		damageBlock(t, x.im.dev, a, func(b []byte) { copy(b, stale) })
		x.im.mount()
		x.expectDamage(t, "other", 0)
	})
}

// expectDamage checks that block lbn of file reads as ErrChecksum,
// counted once per read, a partial write into it fails too (it must not be
// rewritten under a fresh checksum), and everything else reads intact.
func (x *sumFixture) expectDamage(t *testing.T, file string, lbn uint64) {
	t.Helper()
	fs := x.im.fs
	// The scrub finds it first, by path and byte range.
	fds := must(fs.Findings()).ok(t)
	want := fmt.Sprintf("/%s: bytes %d..%d ", file, lbn*4096, lbn*4096+4095)
	if len(fds) != 1 || fds[0].Kind != FindDataChecksum || fds[0].Ino != x.inos[file] || !strings.HasPrefix(fds[0].Detail, want) {
		t.Fatalf("findings %v, want one %s finding starting %q", fds, FindDataChecksum, want)
	}
	buf := make([]byte, 4096)
	_, err := fs.Read(x.inos[file], int64(lbn)*4096, buf)
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("read of the damaged block: %v, want ErrChecksum", err)
	}
	_, err = fs.Read(x.inos[file], int64(lbn)*4096+10, buf[:10]) // a part of it
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("partial read of the damaged block: %v", err)
	}
	if got := fs.Stats().ChecksumErrors; got != 2 {
		t.Fatalf("ChecksumErrors %d after two reads of the damaged block", got)
	}
	if _, err := fs.Write(x.inos[file], int64(lbn)*4096+1, []byte("x")); !errors.Is(err, ErrChecksum) {
		t.Fatalf("partial write into the damaged block: %v", err)
	}
	for name, want := range x.files {
		for off := 0; off < len(want); off += 4096 {
			if name == file && uint64(off/4096) == lbn {
				continue
			}
			n, err := fs.Read(x.inos[name], int64(off), buf)
			if err != nil || !bytes.Equal(buf[:n], want[off:off+n]) {
				t.Fatalf("%s at %d: %v, or wrong bytes", name, off, err)
			}
		}
	}
	if _, err := fs.Lookup(x.inos["dir"], "entry"); err != nil {
		t.Fatalf("lookup in the intact directory: %v", err)
	}
	x.im.fs.Close()
	x.im.fs = nil // damaged: no final check
}

// TestDirChecksum: a directory block whose bytes are an older valid
// version of itself (the entry added since is missing) is caught by the
// pointer's checksum, where its own CRC passes.
func TestDirChecksum(t *testing.T) {
	x := newSumFixture(t)
	d := x.inos["dir"]
	old, _ := x.addr(t, "dir", 0)
	stale := make([]byte, 4096)
	must(x.im.dev.ReadAt(stale, int64(old)*4096)).ok(t)
	must(x.im.fs.Create(d, "later", 0o644, 0, 0)).ok(t)
	must(0, x.im.fs.Sync()).ok(t)
	a, _ := x.addr(t, "dir", 0)
	x.im.fs.Close()
	x.im.fs = nil
	damageBlock(t, x.im.dev, a, func(b []byte) { copy(b, stale) })
	x.im.mount()
	if _, err := x.im.fs.Lookup(d, "later"); !errors.Is(err, ErrChecksum) {
		t.Fatalf("lookup in a directory block of a stale version: %v, want ErrChecksum", err)
	}
	x.im.fs.Close()
	x.im.fs = nil
}

// TestChecksumsFollowMoves: a block the compactor moves keeps the
// checksum the write gave it, and the file reads back intact after.
func TestChecksumsKeptAcrossCommitAndRemount(t *testing.T) {
	x := newSumFixture(t)
	_, sum := x.addr(t, "large", 15)
	if want := ondisk.DataSum(x.files["large"][15*4096 : 16*4096]); sum != want {
		t.Fatalf("pointer carries %#x, the block's bytes sum to %#x", sum, want)
	}
	x.im.remount()
	if _, again := x.addr(t, "large", 15); again != sum {
		t.Fatalf("after a remount the pointer carries %#x, was %#x", again, sum)
	}
}

// TestStaleMetadata: an older, self-consistent version of an inode block,
// of a numbered indirect block and of an xattr block, put back where the
// newer one was written (a write the device lost), passes the block's own
// CRC; on version 4 the checksum in the map entry or the inode catches
// it: mount refuses the image naming repair (or, for the xattr block,
// reading the attributes fails), and Repair leaves a clean image.
func TestStaleMetadata(t *testing.T) {
	cases := []struct {
		name string
		// where returns the block to make stale, after change made it
		// newer
		where  func(x *sumFixture, t *testing.T) uint64
		change func(x *sumFixture, t *testing.T)
	}{
		{"inode block", func(x *sumFixture, t *testing.T) uint64 {
			fs := x.im.fs
			fs.lock()
			defer fs.unlock()
			return fs.imap.addr(uint64(x.inos["small"]) / fs.geo.ipb)
		}, func(x *sumFixture, t *testing.T) {
			must(x.im.fs.SetAttr(x.inos["small"], SetAttr{Mask: SetMode, Mode: 0o600})).ok(t)
		}},
		{"numbered indirect block", func(x *sumFixture, t *testing.T) uint64 {
			fs := x.im.fs
			fs.lock()
			defer fs.unlock()
			in := must(fs.getLocked(x.inos["huge"])).ok(t)
			k, _ := fs.geo.leafKey(fs.geo.rootBase(1))
			n := must(fs.nodeLocked(in, k, false)).ok(t)
			if n == nil || n.num == 0 {
				t.Fatalf("no numbered leaf: %+v", n)
			}
			return uint64(n.addr)
		}, func(x *sumFixture, t *testing.T) {
			fs := x.im.fs
			off := int64(fs.geo.rootBase(1)+1) * 4096
			must(fs.Write(x.inos["huge"], off, []byte("newer"))).ok(t)
		}},
		{"xattr block", func(x *sumFixture, t *testing.T) uint64 {
			fs := x.im.fs
			fs.lock()
			defer fs.unlock()
			return must(fs.getLocked(x.inos["other"])).ok(t).d.Xattr
		}, func(x *sumFixture, t *testing.T) {
			must(0, x.im.fs.Setxattr(x.inos["other"], "user.k", []byte("newer"), 0)).ok(t)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newSumFixture(t)
			fs := x.im.fs
			huge := must(fs.Create(RootIno, "huge", 0o644, 0, 0)).ok(t).Ino
			x.inos["huge"] = huge
			off := int64(fs.geo.rootBase(1)) * 4096 // under the double indirect root: a numbered leaf
			must(fs.Write(huge, off, []byte("older"))).ok(t)
			must(0, fs.Setxattr(x.inos["other"], "user.k", []byte("older"), 0)).ok(t)
			must(0, fs.Sync()).ok(t)
			old := c.where(x, t)
			stale := make([]byte, 4096)
			must(x.im.dev.ReadAt(stale, int64(old)*4096)).ok(t)
			c.change(x, t)
			must(0, fs.Sync()).ok(t)
			x.im.coldRemount() // a record commit leaves the holders for a full one: unmount's
			a := c.where(x, t)
			if a == old {
				t.Fatal("the block was rewritten in place")
			}
			must(0, x.im.fs.Close()).ok(t)
			x.im.fs = nil
			damageBlock(t, x.im.dev, a, func(b []byte) { copy(b, stale) })
			if c.name == "xattr block" {
				// Not read by the mount: the attributes fail to read, and
				// the scrub finds it.
				x.im.mount()
				if _, err := x.im.fs.Getxattr(x.inos["other"], "user.k"); !errors.Is(err, ErrChecksum) {
					t.Fatalf("getxattr from a stale xattr block: %v, want ErrChecksum", err)
				}
				if fds := must(x.im.fs.Findings()).ok(t); len(fds) == 0 {
					t.Fatal("check finds nothing")
				}
				must(0, x.im.fs.Close()).ok(t)
				x.im.fs = nil
			} else if fs, err := Mount(noClose{x.im.dev}, Options{}); !errors.Is(err, ErrNeedsRepair) && !errors.Is(err, ErrCorrupt) {
				if err == nil {
					fs.Close()
				}
				t.Fatalf("mount with a stale %s: %v, want a refusal", c.name, err)
			}
			res, err := Repair(noClose{x.im.dev}, Options{})
			if err != nil || len(res.Left) > 0 || len(res.Fixed) == 0 {
				t.Fatalf("repair: %v, fixed %v, left %v", err, res.Fixed, res.Left)
			}
			x.im.mount()
			x.im.check()
		})
	}
}
