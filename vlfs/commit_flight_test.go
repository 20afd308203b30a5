package vlfs

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// flushGate is a device whose next Flush, once armed, waits until it is
// released: a commit then stays in flight (FS.committing, FS.mu free) for
// as long as a test needs to change the file system under it.
type flushGate struct {
	device.Device
	mu      sync.Mutex
	armed   bool
	held    chan struct{} // closed when the armed Flush has started waiting
	release chan struct{}
}

func (g *flushGate) arm() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.armed, g.held, g.release = true, make(chan struct{}), make(chan struct{})
}

func (g *flushGate) Flush() error {
	g.mu.Lock()
	armed, held, release := g.armed, g.held, g.release
	g.armed = false
	g.mu.Unlock()
	if armed {
		close(held)
		<-release
	}
	return g.Device.Flush()
}

// TestInodeReusedDuringCommit: a commit whose plan frees the last inode of
// an inode block drops that block; an inode created while it is in flight
// takes the freed number again. When the commit landed it unpinned the
// inode by number, so it unpinned the new one, which was never written:
// after a remount its entry named a free inode. (Found by
// TestConcurrentMixedOps, 1 run in 6 under load.)
func TestInodeReusedDuringCommit(t *testing.T) {
	gate := &flushGate{Device: newFormatted(t, 32<<20)}
	im := mountImage(t, gate, Options{Logf: t.Logf})
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
	select {
	case <-gate.held:
	case <-time.After(10 * time.Second):
		t.Fatal("the commit never reached its flush")
	}
	if !fs.mu.TryLock() {
		close(gate.release)
		t.Fatal("FS.mu is held while the commit flushes: the test cannot create under it")
	}
	fs.mu.Unlock()
	b := must(fs.Create(RootIno, "b", 0o640, 7, 8)).ok(t)
	close(gate.release)
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
