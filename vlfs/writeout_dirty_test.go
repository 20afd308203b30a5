package vlfs

import (
	"fmt"
	"testing"
)

// TestDirtyMapRebuiltAfterStorm: once a storm of changes has been
// committed, the dirty-inode map is rebuilt small (it is iterated by every
// commit; BenchmarkFsyncAfterStorm shows what a stale big one costs), and
// inodes dirtied again are still found by the next commit.
func TestDirtyMapRebuiltAfterStorm(t *testing.T) {
	im := newImage(t, 64<<20)
	fs := im.fs
	dir := must(fs.Mkdir(RootIno, "d", 0o755, 0, 0)).ok(t)
	const n = 3 * dirtyRebuildMin
	for i := range n {
		must(fs.Create(dir.Ino, fmt.Sprintf("f%d", i), 0o644, 0, 0)).ok(t)
	}
	fs.mu.Lock()
	peak := fs.dirtyPeak
	fs.mu.Unlock()
	if peak < dirtyRebuildMin {
		t.Fatalf("peak %d after %d creates: the storm did not reach the rebuild size", peak, n)
	}
	must(0, fs.Sync()).ok(t)
	fs.mu.Lock()
	left, peak := len(fs.dirty), fs.dirtyPeak
	fs.mu.Unlock()
	if left != 0 || peak != 0 {
		t.Errorf("after Sync: %d dirty, peak %d; want the map rebuilt empty", left, peak)
	}
	f := must(fs.Lookup(dir.Ino, "f7")).ok(t)
	must(fs.Write(f.Ino, 0, []byte("after the storm"))).ok(t)
	must(0, fs.Fsync(f.Ino, false)).ok(t)
	im.remount()
	f = must(im.fs.Lookup(must(im.fs.Lookup(RootIno, "d")).ok(t).Ino, "f7")).ok(t)
	buf := make([]byte, 64)
	if k := must(im.fs.Read(f.Ino, 0, buf)).ok(t); string(buf[:k]) != "after the storm" {
		t.Errorf("after remount: %q", buf[:k])
	}
}
