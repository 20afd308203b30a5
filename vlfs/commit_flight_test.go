package vlfs

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// opGate is a device that, once armed, holds the next operation of kind
// op after it has reached the device, until released: a commit (at its
// flush) or a batch of data (at its write) then stays in flight, with
// FS.mu free, for as long as a test needs to change the file system
// under it.
type opGate struct {
	device.Device
	op      device.OpKind
	mu      sync.Mutex
	armed   bool
	held    chan struct{} // closed when the armed operation has started waiting
	release chan struct{}
}

func newOpGate(d device.Device, op device.OpKind) *opGate { return &opGate{Device: d, op: op} }

func (g *opGate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.held, g.release = true, make(chan struct{}), make(chan struct{})
}

// free lets the held operation go (once; later calls do nothing), so a
// test that fails while one is held does not hang its cleanup.
func (g *opGate) free() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.release != nil {
		close(g.release)
		g.release = nil
	}
}

// wait waits for the armed operation to be held, failing t after 10 s.
func (g *opGate) wait(t *testing.T) {
	t.Helper()
	select {
	case <-g.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the gated operation never came")
	}
}

func (g *opGate) hold(k device.OpKind) {
	g.mu.Lock()
	armed, held, release := g.armed && k == g.op, g.held, g.release
	if release == nil {
		armed = false
	}
	if armed {
		g.armed = false
	}
	g.mu.Unlock()
	if armed {
		close(held)
		<-release
	}
}

func (g *opGate) WriteAt(p []byte, off int64) (int, error) {
	n, err := g.Device.WriteAt(p, off)
	g.hold(device.OpWrite)
	return n, err
}

func (g *opGate) ReadAt(p []byte, off int64) (int, error) {
	n, err := g.Device.ReadAt(p, off)
	g.hold(device.OpRead)
	return n, err
}

func (g *opGate) Flush() error {
	err := g.Device.Flush()
	g.hold(device.OpFlush)
	return err
}

// mustBeFree fails t if FS.mu is held.
func mustBeFree(t *testing.T, fs *FS) {
	t.Helper()
	if !fs.mu.TryLock() {
		t.Fatal("FS.mu is held while the device works")
	}
	fs.mu.Unlock()
}

// TestInodeReusedDuringCommit: a commit whose plan frees the last inode of
// an inode block drops that block; an inode created while it is in flight
// takes the freed number again. When the commit landed it unpinned the
// inode by number, so it unpinned the new one, which was never written:
// after a remount its entry named a free inode. (Found by
// TestConcurrentMixedOps, 1 run in 6 under load.)
func TestInodeReusedDuringCommit(t *testing.T) {
	gate := newOpGate(newFormatted(t, 32<<20), device.OpFlush)
	im := mountImage(t, gate, Options{Logf: t.Logf})
	t.Cleanup(gate.free)
	fs := im.fs
	ipb := Ino(fs.geo.ipb)
	// Fill inode block 0, so that the next inode is the first of block 1.
	var last Attr
	for i := 0; last.Ino == 0 || last.Ino < ipb-1; i++ {
		last = must(fs.Create(RootIno, fmt.Sprintf("fill%d", i), 0o644, 0, 0)).ok(t)
	}
	a := must(fs.Create(RootIno, "a", 0o644, 0, 0)).ok(t)
	if a.Ino != ipb {
		t.Fatalf("inode of a is %d, want %d (the first of block 1)", a.Ino, ipb)
	}
	must(0, fs.Sync()).ok(t)
	must(0, fs.Unlink(RootIno, "a")).ok(t)
	fs.Forget(a.Ino, 1) // a is free now, and block 1 holds nothing in use

	gate.arm()
	synced := make(chan error, 1)
	go func() { synced <- fs.Sync() }()
	gate.wait(t)
	mustBeFree(t, fs)
	b := must(fs.Create(RootIno, "b", 0o640, 7, 8)).ok(t)
	gate.free()
	must(0, <-synced).ok(t)
	if b.Ino != a.Ino {
		t.Fatalf("b got inode %d, want the freed %d", b.Ino, a.Ino)
	}
	must(0, fs.Sync()).ok(t)
	im.remount() // checks before and after
	got := must(im.fs.Lookup(RootIno, "b")).ok(t)
	if got.Ino != b.Ino || got.Mode&0o7777 != 0o640 || got.Uid != 7 || got.Gid != 8 {
		t.Fatalf("after remount b is inode %d mode %o uid %d gid %d, want %d 640 7 8", got.Ino, got.Mode&0o7777, got.Uid, got.Gid, b.Ino)
	}
}
