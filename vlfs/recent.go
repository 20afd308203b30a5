package vlfs

import "github.com/vlfs/vlfs/vld"

// recentBlocks keeps the contents of the file-data blocks written last, by
// address, so that the idle-time compactor can move them without reading
// them back: the tracks it empties first are the ones the latest bursts
// filled, whose live blocks are mostly that data (docs/compactor.md,
// "Commit every 32 moves, relist stale sources, move recent data from
// memory"). Eviction is first in, first out.
//
// It holds the write-out's own buffers, which nothing changes once
// written (a later write to the same file block gets a new buffer,
// dirtyBlockLocked), so keeping them costs no copy. An entry is dropped
// when its block is freed (noteFreeLocked): the address may then be
// reused for other contents. Guarded by FS.mu.
type recentBlocks struct {
	limit int // blocks; 0 keeps nothing
	m     map[vld.Addr]recentEntry
	ring  []recentSlot // insertion order, oldest at head
	head  int
	seq   uint64
	hits  int64 // blocks the compactor moved from here instead of reading
}

type recentEntry struct {
	buf []byte
	seq uint64
}

type recentSlot struct {
	a   vld.Addr
	seq uint64
}

// put remembers buf as the contents of a. buf must never change again.
func (r *recentBlocks) put(a vld.Addr, buf []byte) {
	if r.limit <= 0 || buf == nil {
		return
	}
	if r.m == nil {
		r.m = make(map[vld.Addr]recentEntry, r.limit)
		r.ring = make([]recentSlot, 0, r.limit)
	}
	r.seq++
	r.m[a] = recentEntry{buf: buf, seq: r.seq}
	s := recentSlot{a: a, seq: r.seq}
	if len(r.ring) < r.limit {
		r.ring = append(r.ring, s)
		return
	}
	old := r.ring[r.head]
	if e, ok := r.m[old.a]; ok && e.seq == old.seq {
		delete(r.m, old.a)
	}
	r.ring[r.head] = s
	r.head = (r.head + 1) % r.limit
}

// get returns the remembered contents of a, if any. The caller must not
// change them.
func (r *recentBlocks) get(a vld.Addr) ([]byte, bool) {
	e, ok := r.m[a]
	return e.buf, ok
}

// drop forgets a (its block was freed). Its ring slot stays until it is
// reused; the sequence number tells it is stale.
func (r *recentBlocks) drop(a vld.Addr) { delete(r.m, a) }
