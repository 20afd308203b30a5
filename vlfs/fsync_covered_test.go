package vlfs

import (
	"bytes"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// TestFsyncOfUnchangedState: an fsync that finds nothing changed since
// the last commit's snapshot needs no commit and no device flush of its
// own; the next change must still be committed by the next fsync, and a
// crash right after it keeps both writes.
func TestFsyncOfUnchangedState(t *testing.T) {
	rec := device.NewCrash(newFormatted(t, 64<<20))
	fs := must(Mount(noClose{rec}, Options{FlushInterval: time.Hour, Logf: t.Logf})).ok(t)
	defer fs.Close()
	a := must(fs.Create(RootIno, "f", 0o644, 0, 0)).ok(t)
	must(fs.Write(a.Ino, 0, []byte("first"))).ok(t)
	must(0, fs.Fsync(a.Ino, false)).ok(t)
	before, flushes := fs.Stats(), rec.Flushes()
	for range 3 {
		must(0, fs.Fsync(a.Ino, false)).ok(t)
		must(0, fs.Fsync(RootIno, true)).ok(t)
	}
	// A read changes nothing durable either (no atime here).
	must(fs.Read(a.Ino, 0, make([]byte, 5))).ok(t)
	must(0, fs.Fsync(a.Ino, false)).ok(t)
	after := fs.Stats()
	if after.Commits != before.Commits || rec.Flushes() != flushes {
		t.Fatalf("fsyncs of an unchanged state: commits %d -> %d, device flushes %d -> %d",
			before.Commits, after.Commits, flushes, rec.Flushes())
	}
	if n := after.CoveredSyncs - before.CoveredSyncs; n != 7 {
		t.Fatalf("covered fsyncs %d, want 7", n)
	}
	must(fs.Write(a.Ino, 5, []byte(" second"))).ok(t)
	must(0, fs.Fsync(a.Ino, false)).ok(t)
	if c := fs.Stats().Commits; c != before.Commits+1 {
		t.Fatalf("fsync after a write: commits %d -> %d, want one more", before.Commits, c)
	}
	if err := fs.Check(); err != nil {
		t.Fatal(err)
	}
	// Crash at the last flush: only what commits made durable is there.
	img := must(rec.Image(device.State{Flushes: rec.Flushes()})).ok(t)
	cfs := must(Mount(img, Options{FlushInterval: time.Hour})).ok(t)
	defer cfs.Close()
	if err := cfs.Check(); err != nil {
		t.Fatal(err)
	}
	b := must(cfs.Lookup(RootIno, "f")).ok(t)
	buf := make([]byte, 64)
	n := must(cfs.Read(b.Ino, 0, buf)).ok(t)
	if !bytes.Equal(buf[:n], []byte("first second")) {
		t.Fatalf("after the crash: %q", buf[:n])
	}
}

// TestFsyncJoinsCommitBeforeSnapshot: an fsync that arrives while a
// commit is still writing out buffered data, before it takes its
// snapshot, is answered by that commit (its snapshot, taken later under
// FS.mu, holds the fsync's change) instead of waiting for it and then for
// a commit of its own. The change must be durable when the fsync returns.
func TestFsyncJoinsCommitBeforeSnapshot(t *testing.T) {
	gate := newOpGate(newFormatted(t, 64<<20), device.OpWrite)
	im := mountImage(t, gate, Options{Logf: t.Logf, FlushInterval: time.Hour})
	t.Cleanup(gate.free)
	fs := im.fs
	bs := int(fs.geo.bs)
	big := must(fs.Create(RootIno, "big", 0o644, 0, 0)).ok(t)
	late := must(fs.Create(RootIno, "late", 0o644, 0, 0)).ok(t)
	must(fs.Write(big.Ino, 0, bytes.Repeat([]byte{'b'}, 256*bs))).ok(t) // past commitInlineBytes: batches first
	before := fs.Stats()

	gate.arm()
	synced := make(chan error, 1)
	go func() { synced <- fs.Sync() }()
	gate.wait(t) // the commit's first unlocked batch is at the device
	mustBeFree(t, fs)
	want := []byte("written while the commit wrote out")
	must(fs.Write(late.Ino, 0, want)).ok(t)
	fsynced := make(chan error, 1)
	go func() { fsynced <- fs.Fsync(late.Ino, false) }()
	deadline := time.Now().Add(10 * time.Second)
	for fs.stats.joined.Load() == before.JoinedSyncs { // not Stats: the held write keeps the volume's lock
		if time.Now().After(deadline) {
			t.Fatal("the fsync never joined the running commit")
		}
		time.Sleep(time.Millisecond)
	}
	gate.free()
	must(0, <-synced).ok(t)
	must(0, <-fsynced).ok(t)
	if c := fs.Stats().Commits - before.Commits; c != 1 {
		t.Fatalf("%d commits for a sync and an fsync that joined it, want 1", c)
	}
	// What a crash now leaves: the joined commit made the change durable.
	crashed := mountImage(t, imageCopy(t, gate), Options{FlushInterval: time.Hour})
	a := must(crashed.fs.Lookup(RootIno, "late")).ok(t)
	buf := make([]byte, 64)
	if n := must(crashed.fs.Read(a.Ino, 0, buf)).ok(t); !bytes.Equal(buf[:n], want) {
		t.Fatalf("after a crash: %q, want %q", buf[:n], want)
	}
}
