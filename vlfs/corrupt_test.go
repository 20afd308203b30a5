package vlfs

import (
	"errors"
	"testing"
)

// TestCheckFindsDamage proves Check is not vacuous: each case damages the
// in-memory state in one way and Check must report ErrCorrupt.
func TestCheckFindsDamage(t *testing.T) {
	tests := []struct {
		name   string
		damage func(x *fixture, t *testing.T)
	}{
		{"link count", func(x *fixture, t *testing.T) { x.inode(t, x.f).d.Nlink = 5 }},
		{"block count", func(x *fixture, t *testing.T) { x.inode(t, x.f).d.Blocks++ }},
		{"size below blocks", func(x *fixture, t *testing.T) { x.inode(t, x.g).d.Size = 0; x.inode(t, x.f).d.Size = 0 }},
		{"shared block", func(x *fixture, t *testing.T) {
			f, l := x.inode(t, x.f), x.inode(t, x.l)
			l.d.Direct[1] = f.d.Direct[0]
			l.d.Blocks++
		}},
		{"unreachable", func(x *fixture, t *testing.T) {
			x.fs.inodes[RootIno].dir.ents["f"] = dirEnt{ino: x.g, typ: 8, blk: 0}
		}},
		{"wrong parent", func(x *fixture, t *testing.T) { x.inode(t, x.e).d.Parent = uint64(x.d) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFixture(t)
			must(0, x.fs.Sync()).ok(t)
			x.fs.lock()
			tt.damage(x, t)
			x.fs.unlock()
			if err := x.fs.Check(); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("check after damage: %v", err)
			}
			x.im.fs = nil // no final check or clean close of a damaged file system
		})
	}
}

func (x *fixture) inode(t *testing.T, ino Ino) *inode {
	t.Helper()
	in, err := x.fs.getLocked(ino)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestMountRejectsDamagedInodeBlock flips a byte of an inode block of a
// cleanly closed image: Mount must fail with ErrNeedsRepair instead of
// mounting garbage. (After an unclean stop the volume itself treats damage
// to the newest commit's blocks as a torn commit and recovers the one
// before, which is also not garbage.)
func TestMountRejectsDamagedInodeBlock(t *testing.T) {
	x := newFixture(t)
	must(0, x.fs.Sync()).ok(t)
	addr := x.fs.imap.addr(0)
	must(0, x.fs.Close()).ok(t)
	x.im.fs = nil
	img := imageCopy(t, x.im.dev)
	off := int64(addr)*4096 + 2*256 + 40 // inode 2's size field
	b := []byte{0}
	must(img.ReadAt(b, off)).ok(t)
	b[0] ^= 0xff
	must(img.WriteAt(b, off)).ok(t)
	if fs, err := Mount(img, Options{}); !errors.Is(err, ErrNeedsRepair) {
		if err == nil {
			fs.Close()
		}
		t.Fatalf("mount of a damaged image: %v", err)
	}
}
