package vlfs

import (
	"bytes"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/ondisk"
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

// TestMetadataLoadsWithoutLock: on a cold mount, GetAttr, Lookup and
// ReadDir read the inode blocks and directories they need with FS.mu
// released, so a chmod of another file goes on meanwhile; their answers
// are those of a warm mount. Before, every one of those reads held FS.mu.
func TestMetadataLoadsWithoutLock(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	// Pad so that d's inode is alone in its inode block, away from the
	// root's (which mounting loads) and from other's.
	for i := uint64(0); i < im.fs.geo.ipb; i++ {
		must(im.fs.Create(RootIno, fmt.Sprintf("pad%d", i), 0o644, 0, 0)).ok(t)
	}
	d := must(im.fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t)
	var want []string
	for i := range 300 { // two directory blocks and more
		name := fmt.Sprintf("file-with-a-longish-name-%04d", i)
		must(im.fs.Create(d.Ino, name, 0o644, 0, 0)).ok(t)
		want = append(want, name)
	}
	f := must(im.fs.Lookup(d.Ino, want[123])).ok(t)
	other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	must(0, im.fs.Sync()).ok(t)
	im.remount()
	im.coldRemount() // remount's Check loads every inode and directory
	fs := im.fs
	must(fs.GetAttr(other.Ino)).ok(t)

	ops := []struct {
		name  string
		run   func() error
		check func()
	}{
		{"getattr of d", func() error { _, err := fs.GetAttr(d.Ino); return err }, nil},
		{"readdir of d", func() error {
			ents, err := fs.ReadDir(d.Ino)
			if err == nil && len(ents) != len(want)+2 {
				return fmt.Errorf("%d entries, want %d", len(ents), len(want)+2)
			}
			return err
		}, nil},
		{"lookup in d", func() error {
			a, err := fs.Lookup(d.Ino, want[123])
			if err == nil && a.Ino != f.Ino {
				return fmt.Errorf("inode %d, want %d", a.Ino, f.Ino)
			}
			return err
		}, nil},
	}
	for i, op := range ops {
		loadsWithoutLock(t, gate, fs, other.Ino, uint32(i), op.name, op.run)
	}
	if n := fs.Stats().UnlockedMetaLoads; n < 2 {
		t.Errorf("%d inode blocks and directories loaded without FS.mu, want at least 2", n)
	}
	im.check()
}

// BenchmarkLookupGetAttrWarm: a lookup and a getattr of a cached file,
// the per-operation cost of running them through readOnlyOp.
func BenchmarkLookupGetAttrWarm(b *testing.B) {
	im := mountImage(b, newFormatted(b, 16<<20), Options{})
	f := must(im.fs.Create(RootIno, "f", 0o644, 0, 0)).ok(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := im.fs.Lookup(RootIno, "f"); err != nil {
			b.Fatal(err)
		}
		if _, err := im.fs.GetAttr(f.Ino); err != nil {
			b.Fatal(err)
		}
	}
}

// TestUnlockedLoadRacesChange: while a read-only operation's load is out
// without FS.mu, the test changes what it read (afterUnlockedRead): a
// write to the block the read wants (its indirect block loaded and
// changed under FS.mu), a new entry in the directory a readdir loads, a
// chmod of the inode a getattr loads. Each load must be dropped, and the
// operation answer from the changed state; a stale install would lose the
// change (the write, the entry, the mode), which the answers, a remount
// and Check then show.
func TestUnlockedLoadRacesChange(t *testing.T) {
	// Version 1 names indirect blocks by address, so a leaf written out
	// changes its parent; under the node map (2) only the map entry does.
	for _, v := range []uint32{ondisk.FSVersionAddr, ondisk.FSVersion} {
		t.Run(fmt.Sprintf("version %d", v), func(t *testing.T) { unlockedLoadRaces(t, v) })
	}
}

func unlockedLoadRaces(t *testing.T, version uint32) {
	im := mountImage(t, newFormattedVersion(t, 64<<20, version), Options{Logf: t.Logf})
	im.limits = &cacheLimits{inodes: 2, iblks: 64, nodes: 1, dirty: 1000, recent: 64}
	bs := int64(im.fs.geo.bs)
	var pads []Ino
	for i := uint64(0); i < im.fs.geo.ipb; i++ { // d and f in inode blocks of their own
		pads = append(pads, must(im.fs.Create(RootIno, fmt.Sprintf("pad%d", i), 0o644, 0, 0)).ok(t).Ino)
	}
	d := must(im.fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t)
	f := must(im.fs.Create(d.Ino, "f", 0o644, 0, 0)).ok(t)
	for i := uint64(0); i < im.fs.geo.ipb; i++ { // h in an inode block that GetAttr(d) does not load
		must(im.fs.Create(d.Ino, fmt.Sprintf("pad%d", i), 0o644, 0, 0)).ok(t)
	}
	h := must(im.fs.Create(d.Ino, "h", 0o644, 0, 0)).ok(t)
	off := int64(2100 << 10)
	must(im.fs.Write(f.Ino, off, bytes.Repeat([]byte{'o'}, int(bs)))).ok(t)
	must(0, im.fs.Sync()).ok(t)

	cases := []struct {
		name   string
		change func(fs *FS)
		op     func(fs *FS) error
	}{
		{"read while the block is rewritten", func(fs *FS) {
			// Written out, so that the indirect block on the way moves.
			must(fs.Write(f.Ino, off, bytes.Repeat([]byte{'n'}, int(bs)))).ok(t)
			must(0, fs.Sync()).ok(t)
		}, func(fs *FS) error {
			got := make([]byte, bs)
			if _, err := fs.Read(f.Ino, off, got); err != nil {
				return err
			}
			if got[0] != 'n' {
				return fmt.Errorf("read %q, want the write's 'n'", got[:1])
			}
			return nil
		}},
		{"readdir while an entry is added", func(fs *FS) {
			must(fs.Create(d.Ino, "g", 0o644, 0, 0)).ok(t)
		}, func(fs *FS) error {
			ents, err := fs.ReadDir(d.Ino)
			if want := 5 + int(im.fs.geo.ipb); err == nil && len(ents) != want {
				return fmt.Errorf("%d entries, want %d (with g)", len(ents), want)
			}
			return err
		}},
		{"getattr while the mode changes", func(fs *FS) {
			// Committed, so that the inode is clean and the cache may
			// drop it: it is decoded again from the cached inode block.
			must(fs.SetAttr(h.Ino, SetAttr{Mask: SetMode, Mode: 0o600})).ok(t)
			must(0, fs.Sync()).ok(t)
		}, func(fs *FS) error {
			for range 2 {
				a, err := fs.GetAttr(h.Ino)
				if err != nil {
					return err
				}
				if a.Mode&0o777 != 0o600 {
					return fmt.Errorf("mode %o, want 600", a.Mode&0o777)
				}
				for _, p := range pads { // push h out of the two-inode cache
					must(fs.GetAttr(p)).ok(t)
				}
			}
			return nil
		}},
	}
	for _, c := range cases {
		im.coldRemount()
		fs := im.fs
		must(fs.GetAttr(d.Ino)).ok(t) // the others' inode blocks are loaded, so each case loads one thing
		must(0, fs.Open(f.Ino)).ok(t) // f stays in memory: a load into it is installed or dropped, never orphaned
		// Once: the change itself may load without FS.mu (warm) and come
		// through the hook again.
		var fired atomic.Bool
		fs.afterUnlockedRead = func() {
			if fired.CompareAndSwap(false, true) {
				c.change(fs)
			}
		}
		err := c.op(fs)
		fs.afterUnlockedRead = nil
		if !fired.Load() {
			t.Fatalf("%s: no unlocked load happened: the test no longer tests one", c.name)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		must(0, fs.Release(f.Ino)).ok(t)
		must(0, fs.Sync()).ok(t)
		im.remount()
		if err := c.op(im.fs); err != nil {
			t.Fatalf("%s, after a remount: %v", c.name, err)
		}
	}
}

// TestChangesWarmWithoutLock: on a cold mount, a chmod, a create, an
// unlink and a rename first load the inodes and directories they change
// with FS.mu released (warm), so a chmod of another file goes on while
// the device reads. Before, they read them under FS.mu.
func TestChangesWarmWithoutLock(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpRead)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	var pads []Ino
	newPadBlock := func(dir Ino, prefix string) { // fills the rest of an inode block
		for i := uint64(0); i < im.fs.geo.ipb; i++ {
			pads = append(pads, must(im.fs.Create(dir, fmt.Sprintf("%s%d", prefix, i), 0o644, 0, 0)).ok(t).Ino)
		}
	}
	other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t)
	newPadBlock(RootIno, "pad")
	d := must(im.fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t)
	e := must(im.fs.Mkdir(RootIno, "e", 0o755, 0, 0)).ok(t)
	newPadBlock(d.Ino, "dpad")
	h := must(im.fs.Create(d.Ino, "h", 0o644, 0, 0)).ok(t)
	newPadBlock(e.Ino, "epad")
	big := must(im.fs.Create(RootIno, "big", 0o644, 0, 0)).ok(t) // a block behind an indirect leaf
	leafBlock := int64(ondisk.NumDirect+5) * int64(im.fs.geo.bs)
	must(im.fs.Write(big.Ino, leafBlock, make([]byte, im.fs.geo.bs))).ok(t)
	must(0, im.fs.Sync()).ok(t)

	ops := []struct {
		name string
		run  func(fs *FS) error
	}{
		{"chmod of h", func(fs *FS) error {
			_, err := fs.SetAttr(h.Ino, SetAttr{Mask: SetMode, Mode: 0o600})
			return err
		}},
		{"create in d", func(fs *FS) error { _, err := fs.Create(d.Ino, "new", 0o644, 0, 0); return err }},
		{"unlink in d", func(fs *FS) error { return fs.Unlink(d.Ino, "dpad3") }},
		{"rename from d to e", func(fs *FS) error { return fs.Rename(d.Ino, "dpad4", e.Ino, "moved", 0) }},
		{"write behind an indirect leaf", func(fs *FS) error {
			_, err := fs.Write(big.Ino, leafBlock+int64(fs.geo.bs), bytes.Repeat([]byte{7}, fs.geo.bs))
			return err
		}},
	}
	for i, op := range ops {
		im.coldRemount()
		fs := im.fs
		must(fs.GetAttr(other.Ino)).ok(t) // the root's inode block: the chmod below needs no read
		must(fs.GetAttr(big.Ino)).ok(t)   // and big's: the write's first read is its leaf
		loadsWithoutLock(t, gate, fs, other.Ino, uint32(i), op.name, func() error { return op.run(fs) })
		must(0, fs.Sync()).ok(t)
	}
	im.remount()
	got := make([]byte, im.fs.geo.bs)
	must(im.fs.Read(big.Ino, leafBlock+int64(im.fs.geo.bs), got)).ok(t)
	if !bytes.Equal(got, bytes.Repeat([]byte{7}, im.fs.geo.bs)) {
		t.Errorf("big: the block written behind the leaf reads back %x...", got[:8])
	}
	if a := must(im.fs.GetAttr(h.Ino)).ok(t); a.Mode&0o777 != 0o600 {
		t.Errorf("h: mode %o after remount, want 600", a.Mode&0o777)
	}
	for _, c := range []struct {
		dir  Ino
		name string
		ok   bool
	}{{d.Ino, "new", true}, {d.Ino, "dpad3", false}, {d.Ino, "dpad4", false}, {e.Ino, "moved", true}} {
		_, err := im.fs.Lookup(c.dir, c.name)
		if (err == nil) != c.ok {
			t.Errorf("%q in %d: %v, want present=%v", c.name, c.dir, err, c.ok)
		}
	}
}

// loadsWithoutLock runs op with gate armed on reads: op must reach the
// device (else the test no longer tests a load), FS.mu must be free while
// it waits there, and a chmod of other (in memory) must go through
// meanwhile; then op must succeed.
func loadsWithoutLock(t *testing.T, gate *opGate, fs *FS, other Ino, i uint32, name string, op func() error) {
	t.Helper()
	gate.arm()
	done := make(chan error, 1)
	go func() { done <- op() }()
	select {
	case <-gate.held:
	case err := <-done:
		gate.free()
		t.Fatalf("%s: no device read on a cold mount (err %v): the test no longer tests a load", name, err)
	}
	mustBeFree(t, fs)
	must(fs.SetAttr(other, SetAttr{Mask: SetMode, Mode: 0o600 + i})).ok(t)
	gate.free()
	if err := <-done; err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
