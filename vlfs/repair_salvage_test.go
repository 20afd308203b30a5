package vlfs

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	vondisk "github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// salvageFixture is a closed image with files in several inode blocks,
// an indirect block, a numbered leaf node, directories and an xattr
// block; files maps each regular file's inode to its content.
type salvageFixture struct {
	dev   *device.Mem
	files map[Ino][]byte
	paths map[Ino]string
	// addresses of the blocks the cases damage
	addr map[string]uint64
	// which files each block's loss may cut or lose (their bytes may
	// come back only as a prefix, or not at all)
	hits map[string][]Ino
}

func newSalvageFixture(t *testing.T, version uint32) *salvageFixture {
	t.Helper()
	return newSalvageFixtureWith(t, version, VolumeOptions(Options{}))
}

// newSalvageFixtureWith is newSalvageFixture on a volume opened with vo.
func newSalvageFixtureWith(t *testing.T, version uint32, vo vld.Options) *salvageFixture {
	t.Helper()
	x := &salvageFixture{dev: newFormattedVersion(t, 16<<20, version), files: map[Ino][]byte{}, paths: map[Ino]string{},
		addr: map[string]uint64{}, hits: map[string][]Ino{}}
	fs := must(MountWith(noClose{x.dev}, vo, Options{})).ok(t)
	d := must(fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t).Ino
	many := must(fs.Mkdir(d, "many", 0o755, 0, 0)).ok(t).Ino
	f := x.file(t, fs, d, "f", "/d/f", 9000)
	g := x.file(t, fs, RootIno, "g", "/g", 70000) // 12 direct blocks, then the single-indirect root
	for i := range 40 {                           // inodes past the first inode block
		name := fmt.Sprintf("x%02d", i)
		x.file(t, fs, many, name, "/d/many/"+name, 100+i*500)
	}
	deep := must(fs.Create(RootIno, "deep", 0o644, 0, 0)).ok(t).Ino
	must(fs.Write(deep, deepOffset, []byte("deep"))).ok(t)
	x.files[deep], x.paths[deep] = append(make([]byte, deepOffset), "deep"...), "/deep"
	must(0, fs.Setxattr(f, "user.k", []byte("v"), 0)).ok(t)
	must(0, fs.Sync()).ok(t)

	fs.lock()
	in := func(ino Ino) *inode { return must(fs.getLocked(ino)).ok(t) }
	x.addr["inode block 0 (the root's)"] = fs.imap.addr(0)
	x.hits["inode block 0 (the root's)"] = x.inBlock(fs, 0)
	x.addr["inode block 1"] = fs.imap.addr(1)
	x.hits["inode block 1"] = x.inBlock(fs, 1)
	x.addr["indirect block"] = in(g).d.Indirect[0]
	x.hits["indirect block"] = []Ino{g}
	leaf, _ := fs.geo.leafKey(deepOffset / uint64(fs.geo.bs))
	x.addr["leaf node"] = must(fs.nodeLocked(in(deep), leaf, false)).ok(t).addr
	x.hits["leaf node"] = []Ino{deep}
	x.addr["root directory block"] = must(fs.bmapLocked(in(RootIno), 0)).ok(t)
	x.addr["directory block"] = must(fs.bmapLocked(in(many), 0)).ok(t)
	x.addr["xattr block"] = in(f).d.Xattr
	// The volume's fixed blocks: every file survives them.
	x.addr["superblock"], x.addr["checkpoint slot A"], x.addr["checkpoint slot B"] = 0, 1, 2
	fs.unlock()
	must(0, fs.Close()).ok(t)
	for k, a := range x.addr {
		if a == 0 && k != "superblock" {
			t.Fatalf("fixture: %s has no address", k)
		}
	}
	return x
}

func (x *salvageFixture) file(t *testing.T, fs *FS, dir Ino, name, path string, n int) Ino {
	t.Helper()
	a := must(fs.Create(dir, name, 0o644, 0, 0)).ok(t)
	b := bytes.Repeat([]byte(name+"."), n)[:n]
	must(fs.Write(a.Ino, 0, b)).ok(t)
	x.files[a.Ino], x.paths[a.Ino] = b, path
	return a.Ino
}

// inBlock lists the fixture's files whose inode is in inode block ibn.
func (x *salvageFixture) inBlock(fs *FS, ibn uint64) []Ino {
	var out []Ino
	for ino := range x.files {
		if uint64(ino)/fs.geo.ipb == ibn {
			out = append(out, ino)
		}
	}
	return out
}

// TestRepairSalvagesDamagedBlocks is issue 34's damage matrix at the file
// system's level: each kind of metadata block, damaged each way on a
// cleanly closed image. The image then does not mount or does not check
// clean; Repair must leave an image that checks clean and mounts; every
// file the block did not hold reads back byte-identical (at its path, or
// where the repair linked it), and a file it held is gone or a prefix of
// its bytes (truncated), never wrong bytes.
func TestRepairSalvagesDamagedBlocks(t *testing.T) {
	damages := []struct {
		name string
		do   func(b []byte, rng *rand.Rand)
	}{
		{"one bit flipped", func(b []byte, _ *rand.Rand) { b[len(b)/2] ^= 0x10 }},
		{"zeroed", func(b []byte, _ *rand.Rand) { clear(b) }},
		{"random bytes", func(b []byte, rng *rand.Rand) { rng.Read(b) }},
	}
	blocks := []string{"inode block 0 (the root's)", "inode block 1", "indirect block", "leaf node",
		"root directory block", "directory block", "xattr block", "superblock", "checkpoint slot A", "checkpoint slot B"}
	// Version 1 names indirect blocks by address, later versions number
	// the nodes below a root; version 3 has no checksums in its pointers
	// and map entries, version 4 (the default) has.
	for _, v := range []uint32{ondisk.FSVersionAddr, ondisk.FSVersionRecords, ondisk.FSVersion} {
		for _, blk := range blocks {
			for _, dm := range damages {
				t.Run(fmt.Sprintf("v%d/%s/%s", v, blk, dm.name), func(t *testing.T) {
					testSalvage(t, newSalvageFixture(t, v), blk, dm.do)
				})
			}
		}
	}
}

// testSalvage damages blk of x's image, repairs it and verifies.
func testSalvage(t *testing.T, x *salvageFixture, blk string, damage func([]byte, *rand.Rand)) {
	a := x.addr[blk]
	b := make([]byte, 4096)
	must(x.dev.ReadAt(b, int64(a)*4096)).ok(t)
	damage(b, rand.New(rand.NewSource(int64(a))))
	must(x.dev.WriteAt(b, int64(a)*4096)).ok(t)
	found := must(CheckDevice(noClose{x.dev}, Options{ReadOnly: true})).ok(t)
	if len(found) == 0 {
		t.Fatalf("check of the damaged image found nothing")
	}
	res := must(Repair(x.dev, Options{})).ok(t)
	t.Logf("found %d, fixed:\n  %s", len(res.Found), strings.Join(res.Fixed, "\n  "))
	if len(res.Left) != 0 || len(res.Fixed) == 0 {
		t.Fatalf("after repair: left %v, fixed %q", res.Left, res.Fixed)
	}
	if again := must(CheckDevice(noClose{x.dev}, Options{ReadOnly: true})).ok(t); len(again) != 0 {
		t.Fatalf("second check after repair: %v", again)
	}
	x.verify(t, blk)
}

// verify mounts the repaired image read-write, checks it, and reads
// every regular file reachable from the root.
func (x *salvageFixture) verify(t *testing.T, blk string) {
	t.Helper()
	fs := must(Mount(noClose{x.dev}, Options{})).ok(t)
	defer func() { must(0, fs.Close()).ok(t) }()
	if err := fs.Check(); err != nil {
		t.Fatalf("check after repair and remount: %v", err)
	}
	got := map[Ino][]byte{}
	where := map[Ino]string{}
	var walk func(dir Ino, path string)
	walk = func(dir Ino, path string) {
		ents := must(fs.ReadDir(dir)).ok(t)
		for _, e := range ents {
			if e.Name == "." || e.Name == ".." {
				continue
			}
			p := path + "/" + e.Name
			switch e.Mode & ondisk.ModeType {
			case ondisk.ModeDir:
				walk(e.Ino, p)
			case ondisk.ModeReg:
				a := must(fs.GetAttr(e.Ino)).ok(t)
				buf := make([]byte, a.Size)
				n := must(fs.Read(e.Ino, 0, buf)).ok(t)
				got[e.Ino], where[e.Ino] = buf[:n], p
			}
		}
	}
	walk(RootIno, "")
	hit := map[Ino]bool{}
	for _, ino := range x.hits[blk] {
		hit[ino] = true
	}
	for ino, want := range x.files {
		b, ok := got[ino]
		switch {
		case hit[ino] && !ok:
			t.Logf("%s: lost with the block", x.paths[ino])
		case hit[ino]:
			if !bytes.Equal(b, want[:min(len(b), len(want))]) || len(b) > len(want) {
				t.Errorf("%s (now %s): %d bytes, not a prefix of its %d bytes", x.paths[ino], where[ino], len(b), len(want))
			}
		case !ok:
			t.Errorf("%s: not reachable after the repair, though the damaged block did not hold it", x.paths[ino])
		case !bytes.Equal(b, want):
			t.Errorf("%s (now %s): %d bytes differ from its %d bytes", x.paths[ino], where[ino], len(b), len(want))
		}
	}
}

// TestRepairSalvageWithRecords: on version 3 after a crash, log records
// wait to be replayed when the damage is found. A record under a cut
// tree is replayed and then cut off with the rest; the records of a
// cleared inode are dropped; the other file's record survives.
func TestRepairSalvageWithRecords(t *testing.T) {
	for _, c := range []struct {
		name string
		// damage returns the byte offset of the image to flip
		damage func(t *testing.T, fs *FS, f Ino) int64
		fLen   int // bytes of f that survive (-1: f is gone)
	}{
		{"indirect block under a record", func(t *testing.T, fs *FS, f Ino) int64 {
			fs.lock()
			defer fs.unlock()
			d := must(fs.readInodeLocked(uint64(f))).ok(t) // the durable record, not the replayed one
			return int64(d.Indirect[0])*4096 + 2000
		}, ondisk.NumDirect * 4096},
		{"inode with records", func(t *testing.T, fs *FS, f Ino) int64 {
			a := fs.imap.addr(uint64(f) / fs.geo.ipb)
			return int64(a)*4096 + int64(uint64(f)%fs.geo.ipb)*ondisk.InodeSize + 40
		}, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dev := newFormattedVersion(t, 32<<20, ondisk.FSVersionRecords)
			o := Options{FlushInterval: time.Hour}
			fs := must(Mount(noClose{dev}, o)).ok(t)
			f := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t).Ino
			g := must(fs.Create(RootIno, "g", 0o644, 0, 0)).ok(t).Ino
			wantF, wantG := make([]byte, 600*4096), make([]byte, 3*4096)
			rng := rand.New(rand.NewSource(2))
			rng.Read(wantF)
			rng.Read(wantG)
			must(fs.Write(f, 0, wantF)).ok(t)
			must(fs.Write(g, 0, wantG)).ok(t)
			must(0, fs.Sync()).ok(t)
			for _, u := range []struct {
				ino Ino
				off int
				buf []byte
			}{{f, 5 * 4096, wantF[5*4096 : 6*4096]}, {f, 100 * 4096, wantF[100*4096 : 101*4096]}, {g, 4096, wantG[4096 : 2*4096]}} {
				rng.Read(u.buf)
				must(fs.Write(u.ino, int64(u.off), u.buf)).ok(t)
				must(0, fs.Fsync(u.ino, true)).ok(t)
			}
			if fs.Stats().RecordCommits != 3 {
				t.Fatalf("%d record commits, want 3", fs.Stats().RecordCommits)
			}
			img := imageCopy(t, dev) // the crash
			must(0, fs.Close()).ok(t)
			ro := must(Mount(noClose{img}, Options{ReadOnly: true})).ok(t)
			off := c.damage(t, ro, f)
			must(0, ro.Close()).ok(t)
			b := []byte{0}
			must(img.ReadAt(b, off)).ok(t)
			b[0] ^= 0x04
			must(img.WriteAt(b, off)).ok(t)

			res := must(Repair(img, Options{})).ok(t)
			t.Logf("fixed:\n  %s", strings.Join(res.Fixed, "\n  "))
			if len(res.Left) != 0 || len(res.Fixed) == 0 {
				t.Fatalf("after repair: left %v, fixed %q", res.Left, res.Fixed)
			}
			fs2 := must(Mount(noClose{img}, o)).ok(t)
			defer func() { must(0, fs2.Close()).ok(t) }()
			if err := fs2.Check(); err != nil {
				t.Fatal(err)
			}
			readBack(t, fs2, g, wantG)
			a, err := fs2.Lookup(RootIno, "f")
			if c.fLen < 0 {
				if err == nil {
					t.Fatalf("f is still named (inode %d) after its inode was cleared", a.Ino)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			readBack(t, fs2, a.Ino, wantF[:c.fLen])
		})
	}
}

// TestRepairDamagedLogRoot: the newest log entry, which the clean stop's
// tail names (a stop as builds before piece copies made it, KeepLog), is
// damaged: fsck finds the image unmountable, Repair recovers the state
// before the last commit and says that commit is lost, and the result
// checks clean and mounts.
func TestRepairDamagedLogRoot(t *testing.T) {
	vo := VolumeOptions(Options{})
	vo.KeepLog = true
	x := newSalvageFixtureWith(t, ondisk.FSVersion, vo)
	tb := make([]byte, 4096)
	must(x.dev.ReadAt(tb, vondisk.TailAddr*4096)).ok(t)
	tail := must(vondisk.DecodeTail(tb)).ok(t)
	if tail.Root.IsZero() {
		t.Fatal("the fixture's tail names no log entry")
	}
	b := []byte{0}
	off := int64(tail.Root.Addr)*4096 + 300
	must(x.dev.ReadAt(b, off)).ok(t)
	b[0] ^= 0x40
	must(x.dev.WriteAt(b, off)).ok(t)
	found := must(CheckDevice(noClose{x.dev}, Options{ReadOnly: true})).ok(t)
	if !hasKind(found, FindMount) || !strings.Contains(found[0].Detail, "fsck --repair") {
		t.Fatalf("check of the damaged image: %v", found)
	}
	res := must(Repair(x.dev, Options{})).ok(t)
	t.Logf("fixed: %q", res.Fixed)
	if len(res.Left) != 0 || len(res.Fixed) == 0 || !strings.Contains(strings.Join(res.Fixed, " "), "last commit") {
		t.Fatalf("after repair: left %v, fixed %q", res.Left, res.Fixed)
	}
	if again := must(CheckDevice(noClose{x.dev}, Options{ReadOnly: true})).ok(t); len(again) != 0 {
		t.Fatalf("second check after repair: %v", again)
	}
}
