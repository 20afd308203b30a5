package vlfs

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

// compactGated is a fragmented image mounted cold on a device whose next
// read (rg) or write (wg) a test can hold, with "other", a file whose chmod
// shows that FS.mu is free meanwhile. Indirect blocks are not kept in
// memory (an index step must read them). While the gate holds a device
// operation the volume is busy (Volume.mu is held across the device's
// time), so what a test does meanwhile must not need the volume.
type compactGated struct {
	im     *testImage
	rg, wg *opGate
	ct     *CompactTarget
	other  Ino
}

func newCompactGated(t *testing.T) compactGated {
	t.Helper()
	wg := newOpGate(newFormatted(t, 16<<20), device.OpWrite)
	rg := newOpGate(wg, device.OpRead)
	im := mountImage(t, rg, Options{Logf: t.Logf})
	t.Cleanup(rg.free)
	t.Cleanup(wg.free)
	other := must(im.fs.Create(RootIno, "other", 0o644, 0, 0)).ok(t).Ino
	fragment(t, im.fs, rand.New(rand.NewSource(1)), 160)
	im.remount()
	lim := defaultLimits()
	lim.nodes = 1
	im.limits = &lim
	im.coldRemount()
	must(im.fs.GetAttr(other)).ok(t)
	return compactGated{im: im, rg: rg, wg: wg, ct: im.fs.CompactTarget(), other: other}
}

// queueAll lists every track once, so that every inode whose blocks the
// mount walk knew only as "somewhere in inode i" is queued for indexing.
func (c compactGated) queueAll(t *testing.T) {
	t.Helper()
	for tr := range c.im.fs.vol.NumTracks() {
		if _, _, err := c.ct.Live(tr); err != nil && !errors.Is(err, compactor.ErrNotIndexed) {
			t.Fatal(err)
		}
	}
}

// indexAll runs index steps until nothing is left to index.
func (c compactGated) indexAll(t *testing.T) {
	t.Helper()
	for i := 0; c.ct.IndexPending(); i++ {
		if i > 1000 {
			t.Fatal("index steps never end")
		}
		must(c.ct.Index()).ok(t)
	}
}

// dataTrack returns the live blocks of a track holding at least min data
// blocks of files other than big.
func (c compactGated) dataTrack(t *testing.T, min int) []compactor.Block {
	t.Helper()
	big := must(c.im.fs.Lookup(RootIno, "big")).ok(t).Ino
	for tr := range c.im.fs.vol.NumTracks() {
		live, _, err := c.ct.Live(tr)
		if err != nil {
			continue
		}
		n := 0
		for _, b := range live {
			if o := owner(b.Owner); o.kind() == ownData && o.ino() != big {
				n++
			}
		}
		if n >= min {
			return live
		}
	}
	t.Fatalf("no track holds %d data blocks of small files", min)
	return nil
}

// TestCompactorIOWithoutLock: the compactor's device work (an index step's
// metadata reads, the read-ahead of a track, the copies a move writes)
// leaves FS.mu free, so a foreground chmod goes through meanwhile. Before,
// each held FS.mu across the device.
func TestCompactorIOWithoutLock(t *testing.T) {
	c := newCompactGated(t)
	fs := c.im.fs
	before := takeSnapshot(t, fs)
	c.queueAll(t)
	loadsWithoutLock(t, c.rg, fs, c.other, 1, "an index step", func() error {
		_, err := c.ct.Index()
		return err
	})
	c.indexAll(t)
	live := c.dataTrack(t, 4)
	unlocked := fs.Stats().UnlockedCompactBlocks
	loadsWithoutLock(t, c.rg, fs, c.other, 2, "a track's read-ahead", func() error { return c.ct.Prefetch(live) })
	if got := fs.Stats().UnlockedCompactBlocks - unlocked; got == 0 {
		t.Fatal("the read-ahead counted no block read without FS.mu")
	}
	fs.lock()
	cached := len(fs.cm.cache)
	fs.unlock()
	if cached == 0 {
		t.Fatal("the read-ahead kept nothing for the move")
	}
	var moved int
	loadsWithoutLock(t, c.wg, fs, c.other, 3, "a move's copies", func() (err error) {
		moved, err = c.ct.Move(live, vld.HoleOpts{Avoid: -1})
		return err
	})
	if moved == 0 {
		t.Fatal("nothing moved")
	}
	c.im.check()
	if got := takeSnapshot(t, fs); !maps.Equal(got, before) {
		t.Fatalf("tree changed by the moves:\n got %s\nwant %s", summary(got), summary(before))
	}
	c.im.remount()
	if got := takeSnapshot(t, c.im.fs); !maps.Equal(got, before) {
		t.Fatalf("tree changed after remount:\n got %s\nwant %s", summary(got), summary(before))
	}
}

// TestCompactMoveRacesChange: while a move's copies are being written
// (FS.mu free), the files owning the blocks change: some are unlinked,
// some overwritten, some truncated. The move must repoint only owners that
// did nothing meanwhile and free the other copies: the image checks clean
// and reads back what the changes wrote, before and after a remount.
func TestCompactMoveRacesChange(t *testing.T) {
	c := newCompactGated(t)
	fs := c.im.fs
	c.queueAll(t)
	c.indexAll(t)
	live := c.dataTrack(t, 6)
	d := must(fs.Lookup(RootIno, "d")).ok(t).Ino
	names := map[Ino]string{}
	for _, e := range must(fs.ReadDir(d)).ok(t) {
		names[e.Ino] = e.Name
	}
	var owners []Ino
	seen := map[Ino]bool{}
	for _, b := range live {
		if o := owner(b.Owner); o.kind() == ownData && names[Ino(o.ino())] != "" && !seen[Ino(o.ino())] {
			seen[Ino(o.ino())] = true
			owners = append(owners, Ino(o.ino()))
		}
	}
	if len(owners) < 3 {
		t.Fatalf("the track's data blocks belong to %d small files, want 3", len(owners))
	}
	for _, ino := range owners {
		must(fs.GetAttr(ino)).ok(t) // in memory: the changes below read nothing
	}
	want := map[string][]byte{} // name -> contents after the changes; nil: unlinked
	change := func() {
		for i, ino := range owners {
			name := names[ino]
			switch i % 3 {
			case 0:
				must(0, fs.Unlink(d, name)).ok(t)
				want[name] = nil
			case 1:
				b := bytes.Repeat([]byte(fmt.Sprintf("new %d;", i)), 700)
				must(fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: 0})).ok(t)
				must(fs.Write(ino, 0, b)).ok(t)
				want[name] = b
			case 2:
				must(fs.SetAttr(ino, SetAttr{Mask: SetSize, Size: 0})).ok(t)
				want[name] = []byte{}
			}
		}
	}
	c.wg.arm()
	done := make(chan error, 1)
	go func() {
		_, err := c.ct.Move(live, vld.HoleOpts{Avoid: -1})
		done <- err
	}()
	select {
	case <-c.wg.held:
	case err := <-done:
		t.Fatalf("the move wrote nothing (err %v)", err)
	}
	mustBeFree(t, fs)
	change()
	c.wg.free()
	must(0, <-done).ok(t)
	must(0, fs.Sync()).ok(t)
	c.im.check()
	verify := func(fs *FS) {
		t.Helper()
		for name, b := range want {
			a, err := fs.Lookup(d, name)
			if b == nil {
				wantErr(t, err, ErrNotExist)
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			readBack(t, fs, a.Ino, b)
		}
	}
	verify(fs)
	c.im.remount()
	verify(c.im.fs)
}
