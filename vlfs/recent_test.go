package vlfs

import (
	"bytes"
	"maps"
	"math/rand"
	"testing"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
)

func TestRecentBlocks(t *testing.T) {
	blk := func(b byte) []byte { return bytes.Repeat([]byte{b}, 8) }
	for _, tc := range []struct {
		name  string
		limit int
		ops   func(r *recentBlocks)
		want  map[vld.Addr]byte // remembered: address -> fill byte
	}{
		{"limit 0 keeps nothing", 0, func(r *recentBlocks) { r.put(1, blk(1)) }, map[vld.Addr]byte{}},
		{"nil is not kept", 2, func(r *recentBlocks) { r.put(1, nil) }, map[vld.Addr]byte{}},
		{"first in, first out", 2, func(r *recentBlocks) {
			r.put(1, blk(1))
			r.put(2, blk(2))
			r.put(3, blk(3))
		}, map[vld.Addr]byte{2: 2, 3: 3}},
		{"drop forgets", 3, func(r *recentBlocks) {
			r.put(1, blk(1))
			r.put(2, blk(2))
			r.drop(1)
		}, map[vld.Addr]byte{2: 2}},
		{"a put again replaces, and its stale slot evicts nothing", 2, func(r *recentBlocks) {
			r.put(1, blk(1))
			r.drop(1)
			r.put(1, blk(9)) // the address reused for new contents
			r.put(2, blk(2)) // evicts the first slot of 1: stale, so 1 stays
		}, map[vld.Addr]byte{1: 9, 2: 2}},
		{"the newest copy of an address is evicted with its own slot", 2, func(r *recentBlocks) {
			r.put(1, blk(1))
			r.put(1, blk(7))
			r.put(2, blk(2)) // evicts the stale slot
			r.put(3, blk(3)) // evicts 1's live slot
		}, map[vld.Addr]byte{2: 2, 3: 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := recentBlocks{limit: tc.limit}
			tc.ops(&r)
			if len(r.m) != len(tc.want) {
				t.Fatalf("%d remembered, want %d (%v)", len(r.m), len(tc.want), r.m)
			}
			for a, b := range tc.want {
				got, ok := r.get(a)
				if !ok || !bytes.Equal(got, blk(b)) {
					t.Errorf("get(%d) = %v, %v; want %v", a, got, ok, blk(b))
				}
			}
			if len(r.m) > max(tc.limit, 0) || len(r.ring) > max(tc.limit, 0) {
				t.Errorf("%d entries and %d slots over the limit %d", len(r.m), len(r.ring), tc.limit)
			}
		})
	}
}

// TestRecentDataMovesWithoutReads: blocks of file data just written are
// remembered by address; a block freed is forgotten at once (its address
// may be reused for other contents); the compactor moves remembered blocks
// from memory, and the tree is the same after a remount.
func TestRecentDataMovesWithoutReads(t *testing.T) {
	im := newImage(t, 16<<20)
	fragment(t, im.fs, rand.New(rand.NewSource(1)), 160)
	im.remount()
	f := must(im.fs.Create(RootIno, "fresh", 0o644, 0, 0)).ok(t)
	data := bytes.Repeat([]byte("recent!"), 3*4096/7+1)[:3*4096]
	must(im.fs.Write(f.Ino, 0, data)).ok(t)
	must(0, im.fs.Fsync(f.Ino, false)).ok(t)

	im.fs.lock()
	in := im.fs.inodes[f.Ino]
	a0 := in.d.Direct[0]
	got, ok := im.fs.cm.recent.get(a0)
	im.fs.unlock()
	if !ok || !bytes.Equal(got, data[:4096]) {
		t.Fatalf("block 0 at %d not remembered as written (%v)", a0, ok)
	}
	// Rewriting block 0 frees its old address: forgotten.
	must(im.fs.Write(f.Ino, 0, bytes.Repeat([]byte{'x'}, 4096))).ok(t)
	must(0, im.fs.Fsync(f.Ino, false)).ok(t)
	im.fs.lock()
	_, stale := im.fs.cm.recent.get(a0)
	im.fs.unlock()
	if stale {
		t.Fatalf("freed block %d still remembered", a0)
	}

	before := takeSnapshot(t, im.fs)
	c := must(compactor.New(im.fs.CompactTarget(), compactor.Config{TargetEmpty: 1})).ok(t)
	must(0, c.Compact(nil)).ok(t)
	im.fs.lock()
	hits := im.fs.cm.recent.hits
	im.fs.unlock()
	if hits == 0 {
		t.Fatalf("compaction moved %d blocks, none from memory (stats %+v)", c.Stats().BlocksMoved, c.Stats())
	}
	t.Logf("moved %d blocks, %d from memory", c.Stats().BlocksMoved, hits)
	im.check()
	if got := takeSnapshot(t, im.fs); !maps.Equal(got, before) {
		t.Fatalf("tree changed by compaction:\n got %s\nwant %s", summary(got), summary(before))
	}
	im.remount()
	if got := takeSnapshot(t, im.fs); !maps.Equal(got, before) {
		t.Fatalf("tree changed after remount:\n got %s\nwant %s", summary(got), summary(before))
	}
}
