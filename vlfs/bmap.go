package vlfs

import (
	"math"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// An inode's block tree: logical blocks 0..11 are direct pointers; then
// root r (0, 1, 2) is a tree of height r+1 of indirect blocks covering
// per^(r+1) logical blocks. A node is named by its root, its height (1 =
// points at data) and its index among the nodes of that height in that root.
type nodeKey struct {
	root, height uint8
	idx          uint64
}

// node is a loaded indirect block. A dirty node (in its inode's
// dirtyNodes) is written at the next write-out; a new node has addr 0.
// Under the node map, num is its node number (what its parent holds).
type node struct {
	addr vld.Addr
	num  uint64
	ptrs []uint64
	sums []uint32 // the data checksum beside each pointer (height 1, summed geometry); nil otherwise
	want uint32   // the checksum the node's parent or map entry names it with, when read from disk
}

// newNode returns an empty node of g's fan-out.
func (g geometry) newNode() *node {
	n := &node{ptrs: make([]uint64, g.per)}
	if g.summed {
		n.sums = make([]uint32, g.per)
	}
	return n
}

// nodeDirty reports whether node k (n) changed since it was last written.
func (in *inode) nodeDirty(k nodeKey, n *node) bool { return in.dirtyNodes[k] == n }

// nodeCleanAt reports whether node k (n) is loaded, unchanged since it was
// read or written, and at a: what address a holds on disk is then n's
// encoding.
func (in *inode) nodeCleanAt(k nodeKey, n *node, a vld.Addr) bool {
	return n != nil && !in.nodeDirty(k, n) && n.addr == a
}

// dirtyNode marks node k (n) changed since it was last written.
func (in *inode) dirtyNode(k nodeKey, n *node) {
	if in.dirtyNodes == nil {
		in.dirtyNodes = map[nodeKey]*node{}
	}
	in.dirtyNodes[k] = n
}

// cleanNode records that node k (n) was written as it is.
func (in *inode) cleanNode(k nodeKey, n *node) {
	if in.nodeDirty(k, n) {
		in.undirtyNode(k)
	}
}

// dropNode forgets loaded node k, dirty or not.
func (in *inode) dropNode(k nodeKey) {
	delete(in.nodes, k)
	in.undirtyNode(k)
}

// undirtyNode takes k out of the dirty set, dropping the set once empty: a
// Go map keeps the room it grew to, and every commit iterates the set, so
// after a truncate that dirtied thousands of blocks each later fsync would
// scan their empty slots.
func (in *inode) undirtyNode(k nodeKey) {
	delete(in.dirtyNodes, k)
	if len(in.dirtyNodes) == 0 {
		in.dirtyNodes = nil
	}
}

// span is per^h: the logical blocks a node of height h covers.
func (g geometry) span(h int) uint64 {
	s := uint64(1)
	for ; h > 0; h-- {
		s *= g.per
	}
	return s
}

// rootBase is the first logical block covered by root r.
func (g geometry) rootBase(r int) uint64 {
	b := g.direct
	for i := 0; i < r; i++ {
		b += g.span(i + 1)
	}
	return b
}

// locate returns the root covering lbn (>= g.direct, < maxBlock) and lbn's
// offset inside it.
func (g geometry) locate(lbn uint64) (int, uint64) {
	rel := lbn - g.direct
	for r := 0; r < ondisk.NumIndirect-1; r++ {
		if rel < g.span(r+1) {
			return r, rel
		}
		rel -= g.span(r + 1)
	}
	return ondisk.NumIndirect - 1, rel
}

func (g geometry) leafKey(lbn uint64) (nodeKey, uint64) {
	r, rel := g.locate(lbn)
	return nodeKey{root: uint8(r), height: 1, idx: rel / g.per}, rel % g.per
}

func (g geometry) parentKey(k nodeKey) (nodeKey, uint64) {
	return nodeKey{root: k.root, height: k.height + 1, idx: k.idx / g.per}, k.idx % g.per
}

func (k nodeKey) isRoot() bool { return k.height == k.root+1 }

// nodeLocked returns node k of in, loading it (and its ancestors) from disk
// if needed. A missing node is created when create is set (and counted in
// the inode's blocks), otherwise nil is returned.
func (fs *FS) nodeLocked(in *inode, k nodeKey, create bool) (*node, error) {
	if n := in.nodes[k]; n != nil {
		return n, nil
	}
	var ptr uint64
	if k.isRoot() {
		ptr = in.d.Indirect[k.root]
	} else {
		pk, slot := fs.geo.parentKey(k)
		p, err := fs.nodeLocked(in, pk, create)
		if err != nil || p == nil {
			return nil, err
		}
		ptr = p.ptrs[slot]
	}
	if ptr == 0 && !create {
		return nil, nil
	}
	var n *node
	var err error
	switch {
	case ptr == 0:
		n, err = fs.newTreeNodeLocked(in, k)
	case fs.loads != nil:
		return nil, fs.loads.need(loadReq{kind: loadNode, in: in, miss: nodeMiss{k, ptr}})
	default:
		n, err = fs.readTreeNodeLocked(in, k, ptr)
	}
	if err != nil {
		return nil, err
	}
	if in.nodes == nil {
		in.nodes = map[nodeKey]*node{}
	}
	in.nodes[k] = n
	fs.nodes++
	return n, nil
}

// bmapLocked returns the address of logical block lbn of in (0 = hole).
func (fs *FS) bmapLocked(in *inode, lbn uint64) (uint64, error) {
	a, _, err := fs.bmapSumLocked(in, lbn)
	return a, err
}

// bmapSumLocked returns the address of logical block lbn of in (0 = hole)
// and the data checksum its pointer carries (0 unless summed).
func (fs *FS) bmapSumLocked(in *inode, lbn uint64) (uint64, uint32, error) {
	if lbn < fs.geo.direct {
		return in.d.Direct[lbn], in.d.DirectSum[lbn], nil
	}
	if lbn >= fs.geo.maxBlock {
		return 0, 0, nil
	}
	k, slot := fs.geo.leafKey(lbn)
	n, err := fs.nodeLocked(in, k, false)
	if err != nil || n == nil {
		return 0, 0, err
	}
	return n.ptrs[slot], n.sum(slot), nil
}

// sum is the data checksum of pointer i (0 when n carries none).
func (n *node) sum(i uint64) uint32 { return get(n.sums, i) }

// sum is the checksum a pointer to a block holding b carries: ondisk.DataSum
// when the geometry is summed, 0 otherwise.
func (g geometry) sum(b []byte) uint32 {
	if !g.summed {
		return 0
	}
	return ondisk.DataSum(b)
}

// prepareLocked loads or creates the indirect blocks on lbn's path, so that
// a later setPtrLocked cannot fail.
func (fs *FS) prepareLocked(in *inode, lbn uint64) error {
	if lbn < fs.geo.direct {
		return nil
	}
	k, _ := fs.geo.leafKey(lbn)
	_, err := fs.nodeLocked(in, k, true)
	return err
}

// setPtrLocked points lbn at a, whose bytes have checksum sum (0 unless
// summed), and frees what it pointed at before. The path must have been
// prepared.
func (fs *FS) setPtrLocked(in *inode, lbn uint64, a vld.Addr, sum uint32) error {
	old, err := fs.pointLocked(in, lbn, a, sum)
	if err != nil {
		return err
	}
	if old != 0 && old != a { // equal: rewritten in place
		fs.freeBlockLocked(old)
	}
	fs.rec.sets++
	return nil
}

// pointLocked points lbn at a and returns what it pointed at before,
// which stays the caller's to free (a record's replay frees nothing: the
// walk never declared what the record replaced live).
func (fs *FS) pointLocked(in *inode, lbn uint64, a vld.Addr, sum uint32) (vld.Addr, error) {
	var old *uint64
	if lbn < fs.geo.direct {
		old = &in.d.Direct[lbn]
		in.d.DirectSum[lbn] = sum
		in.changed()
	} else {
		k, slot := fs.geo.leafKey(lbn)
		n, err := fs.nodeLocked(in, k, true)
		if err != nil {
			return 0, err
		}
		old = &n.ptrs[slot]
		if n.sums != nil {
			n.sums[slot] = sum
		}
		in.dirtyNode(k, n)
	}
	prev := *old
	*old = a
	if isBlock(a) {
		fs.noteBlockLocked(in, lbn, a) // the compactor's reverse map
	}
	fs.markDirtyLocked(in)
	return prev, nil
}

// freeBlockLocked queues a for release at the next commit snapshot: until
// then the state being committed may still reference it.
func (fs *FS) freeBlockLocked(a vld.Addr) {
	fs.rec.freed++
	if fs.freeUnwrittenLocked(a) {
		return // a reservation: space, no block
	}
	fs.noteFreeLocked(a) // the compactor's reverse map
	fs.pendingFree = append(fs.pendingFree, a)
}

// truncateBlocksLocked frees every block of in at logical number >= from,
// dirty or written.
func (fs *FS) truncateBlocksLocked(in *inode, from uint64) error {
	return fs.punchBlocksLocked(in, from, math.MaxUint64)
}

// punchBlocksLocked frees every block of in at logical numbers [from, to),
// dirty or written, the indirect blocks wholly inside the range, and those
// only partly inside that are left without a pointer; the others stay,
// with zero pointers where the range was.
func (fs *FS) punchBlocksLocked(in *inode, from, to uint64) error {
	if err := fs.dropDirtyDataLocked(in, from, to); err != nil {
		return err
	}
	for i := from; i < min(to, fs.geo.direct); i++ {
		if in.d.Direct[i] != 0 {
			fs.freeBlockLocked(in.d.Direct[i])
			in.d.Direct[i], in.d.DirectSum[i] = 0, 0
			in.d.Blocks--
			fs.touchLocked(in)
		}
	}
	for r := 0; r < ondisk.NumIndirect; r++ {
		base, span := fs.geo.rootBase(r), fs.geo.span(r+1)
		if from >= base+span || to <= base {
			continue
		}
		root := nodeKey{root: uint8(r), height: uint8(r + 1)}
		if from <= base && to >= base+span {
			if err := fs.freeSubtreeLocked(in, root, in.d.Indirect[r]); err != nil {
				return err
			}
			if in.d.Indirect[r] != 0 {
				in.d.Indirect[r], in.d.IndirectSum[r] = 0, 0
			}
			fs.touchLocked(in)
			continue
		}
		empty, err := fs.punchNodeLocked(in, root, max(from, base)-base, min(to, base+span)-base)
		if err != nil {
			return err
		}
		if empty {
			if err := fs.freeSubtreeLocked(in, root, in.d.Indirect[r]); err != nil {
				return err
			}
			in.d.Indirect[r], in.d.IndirectSum[r] = 0, 0
		}
	}
	return nil
}

// dropDirtyDataLocked forgets buffered blocks at logical numbers [from, to).
func (fs *FS) dropDirtyDataLocked(in *inode, from, to uint64) error {
	for lbn, b := range in.data {
		if lbn < from || lbn >= to {
			continue
		}
		a, err := fs.bmapLocked(in, lbn)
		if err != nil {
			return err
		}
		if a == 0 {
			in.d.Blocks--
			fs.touchLocked(in)
		}
		fs.forgetDirtyLocked(in, lbn, b)
	}
	return nil
}

// forgetDirtyLocked removes one buffered block and its reservation.
func (fs *FS) forgetDirtyLocked(in *inode, lbn uint64, b []byte) {
	delete(in.data, lbn)
	if len(in.data) == 0 {
		// A Go map keeps the room it grew to, and every write-out of the
		// inode iterates it (dataWritesLocked): after a 64 MiB file was
		// written once, each later 4 KiB write+fsync scanned 16,384 empty
		// slots.
		in.data = nil
	}
	fs.reserved--
	if b != nil {
		fs.dirtyBytes -= int64(fs.geo.bs)
	}
}

// punchNodeLocked frees the blocks below node k at offsets [from, to)
// (relative to the node's root), and the subtrees wholly inside or left
// without a block. It reports whether k itself is left without one, for
// the caller to free it.
func (fs *FS) punchNodeLocked(in *inode, k nodeKey, from, to uint64) (bool, error) {
	n, err := fs.nodeLocked(in, k, false)
	if err != nil || n == nil {
		return false, err
	}
	h := int(k.height)
	child := fs.geo.span(h - 1)
	lo := k.idx * fs.geo.span(h)
	for s := uint64(0); s < fs.geo.per; s++ {
		clo := lo + s*child
		if clo+child <= from || clo >= to {
			continue
		}
		if h == 1 {
			if n.ptrs[s] != 0 {
				fs.freeBlockLocked(n.ptrs[s])
				n.ptrs[s] = 0
				if n.sums != nil {
					n.sums[s] = 0
				}
				in.d.Blocks--
				in.dirtyNode(k, n)
				fs.touchLocked(in)
			}
			continue
		}
		ck := nodeKey{root: k.root, height: k.height - 1, idx: k.idx*fs.geo.per + s}
		if clo < from || clo+child > to {
			empty, err := fs.punchNodeLocked(in, ck, from, to)
			if err != nil || !empty {
				if err != nil {
					return false, err
				}
				continue
			}
		}
		if err := fs.freeSubtreeLocked(in, ck, n.ptrs[s]); err != nil {
			return false, err
		}
		if n.ptrs[s] != 0 {
			n.ptrs[s] = 0
			in.dirtyNode(k, n)
			fs.markDirtyLocked(in)
		}
	}
	return fs.nodeEmptyLocked(in, k, n), nil
}

// nodeEmptyLocked reports whether node k (n) points at nothing, on disk or
// in memory: a child not written out yet has no pointer in n.
func (fs *FS) nodeEmptyLocked(in *inode, k nodeKey, n *node) bool {
	for s, c := range n.ptrs {
		if c != 0 {
			return false
		}
		if k.height > 1 && in.nodes[nodeKey{root: k.root, height: k.height - 1, idx: k.idx*fs.geo.per + uint64(s)}] != nil {
			return false
		}
	}
	return true
}

// freeSubtreeLocked frees node k (at ptr on disk, or loaded) and every
// block below it.
func (fs *FS) freeSubtreeLocked(in *inode, k nodeKey, ptr uint64) error {
	n := in.nodes[k]
	if n == nil {
		if ptr == 0 {
			return nil
		}
		var err error
		if n, err = fs.readTreeNodeLocked(in, k, ptr); err != nil {
			return err
		}
	} else {
		in.dropNode(k)
		fs.nodes--
	}
	for s, c := range n.ptrs {
		if k.height == 1 {
			if c != 0 {
				fs.freeBlockLocked(c)
				in.d.Blocks--
			}
			continue
		}
		ck := nodeKey{root: k.root, height: k.height - 1, idx: k.idx*fs.geo.per + uint64(s)}
		if c != 0 || in.nodes[ck] != nil {
			if err := fs.freeSubtreeLocked(in, ck, c); err != nil {
				return err
			}
		}
	}
	fs.dropTreeNodeLocked(in, k, n)
	return nil
}
