package vlfs

import "github.com/vlfs/vlfs/vlfs/ondisk"

// blockVisitor receives the blocks of one inode: data blocks with their
// logical number and the data checksum their pointer carries (node ==
// false; sum 0 unless summed) and indirect blocks (node == true; lbn is
// the node number of a numbered one, else 0; addr 0 for one not written
// yet; sum 0).
type blockVisitor func(node bool, lbn uint64, addr uint64, sum uint32) error

// forEachBlockLocked visits every block in references in its current
// in-memory state (loaded indirect blocks take precedence over the disk).
// Indirect blocks read from disk are not cached.
func (fs *FS) forEachBlockLocked(in *inode, fn blockVisitor) error {
	return fs.forEachBlockFromLocked(in, 0, fn)
}

// forEachBlockFromLocked is forEachBlockLocked leaving out the data blocks
// below logical block from and the subtrees wholly below it. Data blocks
// come in increasing logical order.
func (fs *FS) forEachBlockFromLocked(in *inode, from uint64, fn blockVisitor) error {
	for i, a := range in.d.Direct {
		if a != 0 && uint64(i) >= from {
			if err := fn(false, uint64(i), a, in.d.DirectSum[i]); err != nil {
				return err
			}
		}
	}
	for r := 0; r < ondisk.NumIndirect; r++ {
		base := fs.geo.rootBase(r)
		if base+fs.geo.span(r+1) <= from {
			continue
		}
		k := nodeKey{root: uint8(r), height: uint8(r + 1)}
		if err := fs.visitNodeLocked(in, k, in.d.Indirect[r], base, from, fn); err != nil {
			return err
		}
	}
	return nil
}

func (fs *FS) visitNodeLocked(in *inode, k nodeKey, ptr, base, from uint64, fn blockVisitor) error {
	n := in.nodes[k]
	if n == nil {
		if ptr == 0 {
			return nil
		}
		var err error
		if n, err = fs.readTreeNodeLocked(in, k, ptr); err != nil {
			return err
		}
	}
	if err := fn(true, n.num, n.addr, 0); err != nil {
		return err
	}
	child := fs.geo.span(int(k.height) - 1)
	for s, c := range n.ptrs {
		idx := k.idx*fs.geo.per + uint64(s)
		if base+(idx+1)*child <= from {
			continue
		}
		if k.height == 1 {
			if c != 0 {
				if err := fn(false, base+idx, c, n.sum(uint64(s))); err != nil {
					return err
				}
			}
			continue
		}
		ck := nodeKey{root: k.root, height: k.height - 1, idx: idx}
		if c != 0 || in.nodes[ck] != nil {
			if err := fs.visitNodeLocked(in, ck, c, base, from, fn); err != nil {
				return err
			}
		}
	}
	return nil
}
