package vlfs

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// The node part of the inode map (file-system version FSVersionNodeMap).
//
// The pointers of indirect blocks above height 1 hold node numbers, and
// the map holds each numbered node's address, in pieces from
// ondisk.NodePieceBase. A rewritten indirect block below a root changes its
// own map entry and nothing above it: by address, a 4 KiB overwrite deep
// in a large file rewrote the leaf, the double-indirect block and the
// inode block, because each parent held its child's address (the
// "wandering tree" of log-structured file systems; F2FS's node address
// table is the same cure).
//
// The inode's root pointers stay addresses. A root moves only when it is
// rewritten, and the inode block is rewritten then anyway unless the root
// is a leaf (files of 13 to 521 blocks); numbering those leaves would
// spare the inode block of their overwrites but cost their appends a
// second map piece (one log entry per piece), and a root named by address
// is never worse than FSVersionAddr.
//
// A node number is allocated when its block is created (the parent takes
// the number at once, so an unwritten node is already linked) and freed
// with the block. An allocated node not written yet maps to 0.

// nodeParts is the node part of inodeMap. Guarded by FS.mu.
type nodeParts struct {
	nodeMap  bool       // trees name indirect blocks below the roots by number (ondisk.FSVersionNodeMap)
	nodes    []vld.Addr // by node number; 0 = none, or not written yet
	nodeSums []uint32   // the nodes' checksums, as nodes (summed geometry; else empty)
	nodeUsed []uint64   // bitset by node number; bit 0 (never used) is set
	nodeHint uint64     // no free node number is below this one
	placed   int64      // entries of nodes that are not 0
}

// node is the address of node n (0: free, or not written yet).
func (m *inodeMap) node(n uint64) vld.Addr { return get(m.nodes, n) }

// nodePiece is the piece that maps node n.
func (m *inodeMap) nodePiece(n uint64) uint32 {
	return uint32(ondisk.NodePieceBase + n/m.geo.perPiece)
}

// isNodePiece reports whether piece p maps nodes.
func isNodePiece(p uint32) bool {
	return p >= ondisk.NodePieceBase && !ondisk.IsRecordPiece(p)
}

// nodeSum is the checksum of node n's block (0: none, or not summed).
func (m *inodeMap) nodeSum(n uint64) uint32 { return get(m.nodeSums, n) }

// setNode records node n's new address, whose bytes have checksum sum,
// and marks its piece.
func (m *inodeMap) setNode(n uint64, a vld.Addr, sum uint32) {
	m.setNodeClean(n, a, sum)
	m.dirty[m.nodePiece(n)] = struct{}{}
}

// setNodeClean records an address (and checksum) already committed.
func (m *inodeMap) setNodeClean(n uint64, a vld.Addr, sum uint32) {
	if m.geo.summed {
		put(&m.nodeSums, n, sum)
	}
	switch old := get(m.nodes, n); {
	case old == 0 && a != 0:
		m.placed++
	case old != 0 && a == 0:
		m.placed--
	}
	put(&m.nodes, n, a)
}

func (m *inodeMap) nodeIsUsed(n uint64) bool { return bitIsSet(m.nodeUsed, n) }

func (m *inodeMap) markNodeUsed(n uint64) { setBit(&m.nodeUsed, n) }

// allocNode returns the lowest free node number and marks it used. Node
// numbers are bounded by the blocks that hold the nodes, far below what a
// piece number can name, so allocation cannot run out before the disk.
func (m *inodeMap) allocNode() uint64 {
	n := firstFree(&m.nodeUsed, m.nodeHint)
	m.markNodeUsed(n)
	m.nodeHint = n + 1
	return n
}

// freeNode releases node number n: its entry becomes 0 (a change to
// commit) and the number can be reused.
func (m *inodeMap) freeNode(n uint64) {
	if n == 0 || !m.nodeIsUsed(n) {
		return
	}
	if m.node(n) != 0 { // else never written: nothing on disk names it
		m.setNode(n, 0, 0)
	}
	clearBit(m.nodeUsed, n)
	m.nodeHint = min(m.nodeHint, n)
}

// loadNodePiece records the addresses of node piece p (dst) at mount.
func (m *inodeMap) loadNodePiece(p uint32, dst []uint64, sums []uint32, numBlocks uint64) error {
	lo := uint64(p-ondisk.NodePieceBase) * m.geo.perPiece
	for i, a := range dst {
		n := lo + uint64(i)
		if a == 0 {
			continue
		}
		if n == 0 || n >= numBlocks || a >= numBlocks {
			return fmt.Errorf("piece %d maps node %d at %d on a volume of %d blocks: %w", p, n, a, numBlocks, ErrNeedsRepair)
		}
		m.setNodeClean(n, a, get(sums, uint64(i)))
		m.markNodeUsed(n)
	}
	return nil
}

// nodePieceAddrs copies the addresses node piece p holds into out and,
// if sums is not nil, their checksums into sums.
func (m *inodeMap) nodePieceAddrs(p uint32, out []vld.Addr, sums []uint32) {
	lo := uint64(p-ondisk.NodePieceBase) * m.geo.perPiece
	for i := range out {
		out[i] = m.node(lo + uint64(i))
	}
	for i := range sums {
		sums[i] = m.nodeSum(lo + uint64(i))
	}
}

// numbered reports whether node k is named by node number (a child of an
// indirect block under the node map) rather than by address.
func (fs *FS) numbered(k nodeKey) bool { return fs.imap.nodeMap && !k.isRoot() }

// readTreeNodeLocked reads node k of in, which ptr names (its address, or
// its node number). The node is not cached.
func (fs *FS) readTreeNodeLocked(in *inode, k nodeKey, ptr uint64) (*node, error) {
	n, err := fs.treeNodeAtLocked(in, k, ptr)
	if err != nil {
		return nil, err
	}
	return n, fs.readTreeNode(in.ino, k, n)
}

// treeNodeAtLocked returns node k of in, which ptr names, with its
// address (and number) set and its pointers not yet read.
func (fs *FS) treeNodeAtLocked(in *inode, k nodeKey, ptr uint64) (*node, error) {
	n := fs.geo.newNode()
	n.addr = ptr
	if fs.numbered(k) {
		n.num, n.addr = ptr, fs.imap.node(ptr)
		if n.addr == 0 {
			return nil, fmt.Errorf("inode %d: indirect block %v is node %d, which the map does not place: %w", in.ino, k, ptr, ErrCorrupt)
		}
	}
	n.want = fs.nodeSumLocked(in, k, n)
	return n, nil
}

// readTreeNode reads n's pointers from its address. It touches nothing
// but n, so it runs with FS.mu or with FS.readGate held (readahead_node.go).
func (fs *FS) readTreeNode(ino Ino, k nodeKey, n *node) error {
	buf := make([]byte, fs.geo.bs)
	if err := fs.vol.ReadBlock(n.addr, buf); err != nil {
		return fmt.Errorf("inode %d: reading indirect block at %d: %w", ino, n.addr, err)
	}
	if err := fs.geo.verifyMeta(buf, n.want); err != nil {
		return fmt.Errorf("inode %d: indirect block %v at %d: %w", ino, k, n.addr, err)
	}
	if err := ondisk.DecodeIndirect(buf, uint64(ino), int(k.height), n.ptrs, n.sums); err != nil {
		return fmt.Errorf("at %d: %w: %w", n.addr, err, ErrCorrupt)
	}
	return nil
}

// setTreePtrLocked points node k's parent (the inode's root pointer for a
// root) at v: an address, a node number, or 0. sum is the block's checksum
// when v is a root's address (summed geometry; a root is always named by
// address, nodes below it by number).
func (fs *FS) setTreePtrLocked(in *inode, k nodeKey, v uint64, sum uint32) error {
	if k.isRoot() {
		in.d.Indirect[k.root], in.d.IndirectSum[k.root] = v, sum
		in.changed()
	} else {
		pk, slot := fs.geo.parentKey(k)
		p, err := fs.nodeLocked(in, pk, true)
		if err != nil {
			return err
		}
		p.ptrs[slot] = v
		in.dirtyNode(pk, p)
	}
	fs.markDirtyLocked(in)
	return nil
}

// nodeMovedLocked records that node k (n), unchanged since it was encoded,
// now lives at a: a numbered node's map entry changes; otherwise its
// parent (or the inode's root pointer) does.
func (fs *FS) nodeMovedLocked(in *inode, k nodeKey, n *node, a vld.Addr, sum uint32) error {
	n.addr = a
	if fs.numbered(k) {
		fs.imap.setNode(n.num, a, sum)
		fs.markDirtyLocked(in) // the map change is for the next commit
		return nil
	}
	return fs.setTreePtrLocked(in, k, a, sum)
}

// nodeSumLocked is the checksum node k (n) of in is named with: a numbered
// node's map entry's, a root's in the inode.
func (fs *FS) nodeSumLocked(in *inode, k nodeKey, n *node) uint32 {
	if fs.numbered(k) {
		return fs.imap.nodeSum(n.num)
	}
	if k.isRoot() {
		return in.d.IndirectSum[k.root]
	}
	return 0
}

// newTreeNodeLocked makes node k of in, empty and not yet written. A
// numbered node takes its number now, and its parent names it at once.
func (fs *FS) newTreeNodeLocked(in *inode, k nodeKey) (*node, error) {
	n := fs.geo.newNode()
	in.dirtyNode(k, n)
	in.d.Blocks++
	fs.touchLocked(in)
	if fs.numbered(k) {
		n.num = fs.imap.allocNode()
		if err := fs.setTreePtrLocked(in, k, n.num, 0); err != nil {
			fs.imap.freeNode(n.num)
			return nil, err
		}
	}
	return n, nil
}

// dropTreeNodeLocked forgets node k (n) of in and frees its block and its
// node number; the caller clears the pointer that named it.
func (fs *FS) dropTreeNodeLocked(in *inode, k nodeKey, n *node) {
	if n.addr != 0 {
		fs.freeBlockLocked(n.addr)
	}
	if fs.numbered(k) {
		fs.imap.freeNode(n.num)
	}
	in.d.Blocks--
	fs.touchLocked(in)
}
