package vlfs

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// inodeMap is the in-memory inode map: the address of every inode block
// (the content of the virtual log) and which inode numbers are in use.
// It is guarded by FS.mu.
type inodeMap struct {
	geo       geometry
	addrs     []vld.Addr          // by inode-block number; 0 = no block
	sums      []uint32            // the blocks' checksums, as addrs (summed geometry; else empty)
	used      []uint64            // bitset by inode number; bit 0 (never used) is set
	nused     int64               // inodes in use, not counting inode 0
	hint      uint64              // no free inode number is below this one
	dirty     map[uint32]struct{} // pieces changed since the last commit
	rev       *revMap             // the compactor's reverse map, once built (compact.go)
	nodeParts                     // indirect blocks by node number (nodemap.go)
}

func newInodeMap(g geometry) *inodeMap {
	return &inodeMap{geo: g, used: []uint64{1}, dirty: map[uint32]struct{}{}, nodeParts: nodeParts{nodeUsed: []uint64{1}}}
}

// addr is the address of inode block ibn (0 if none).
func (m *inodeMap) addr(ibn uint64) vld.Addr { return get(m.addrs, ibn) }

// sum is the checksum of inode block ibn's bytes (0 if none, or not summed).
func (m *inodeMap) sum(ibn uint64) uint32 { return get(m.sums, ibn) }

// get is s[i], or the zero value past s's end (a nil s included).
func get[T any](s []T, i uint64) T {
	if i < uint64(len(s)) {
		return s[i]
	}
	var zero T
	return zero
}

// put sets (*s)[i] to v, growing *s with zero values to reach i.
func put[T any](s *[]T, i uint64, v T) {
	if i >= uint64(len(*s)) {
		*s = append(*s, make([]T, i+1-uint64(len(*s)))...)
	}
	(*s)[i] = v
}

// setAddr records a new address for inode block ibn, whose bytes have
// checksum sum, and marks its piece.
func (m *inodeMap) setAddr(ibn uint64, a vld.Addr, sum uint32) {
	m.setAddrClean(ibn, a, sum)
	m.markPiece(ibn)
}

// setAddrClean records an address (and checksum) already committed.
func (m *inodeMap) setAddrClean(ibn uint64, a vld.Addr, sum uint32) {
	put(&m.addrs, ibn, a)
	if m.geo.summed {
		put(&m.sums, ibn, sum)
	}
	m.rev.setIBlock(ibn, a)
}

// markPiece records that the piece holding inode block ibn changed.
func (m *inodeMap) markPiece(ibn uint64) {
	m.dirty[uint32(ibn/m.geo.perPiece)] = struct{}{}
}

// pieceAddrs copies the addresses piece p holds into out (perPiece long)
// and, if sums is not nil, their checksums into sums.
func (m *inodeMap) pieceAddrs(p uint32, out []vld.Addr, sums []uint32) {
	if isNodePiece(p) {
		m.nodePieceAddrs(p, out, sums)
		return
	}
	lo := uint64(p) * m.geo.perPiece
	for i := range out {
		out[i] = m.addr(lo + uint64(i))
	}
	for i := range sums {
		sums[i] = m.sum(lo + uint64(i))
	}
}

// takeDirtySet returns the changed pieces, sorted, and clears the set.
func (m *inodeMap) takeDirtySet() []uint32 {
	out := make([]uint32, 0, len(m.dirty))
	for p := range m.dirty {
		out = append(out, p)
	}
	slices.Sort(out)
	clear(m.dirty)
	return out
}

func (m *inodeMap) isUsed(ino uint64) bool { return bitIsSet(m.used, ino) }

// markUsed sets ino's bit (mount and allocation).
func (m *inodeMap) markUsed(ino uint64) {
	if setBit(&m.used, ino) {
		m.nused++
	}
}

// alloc returns the lowest free inode number and marks it used.
func (m *inodeMap) alloc() (uint64, bool) {
	limit := uint64(1<<32) * m.geo.perPiece * m.geo.ipb // piece numbers are uint32
	ino := firstFree(&m.used, m.hint)
	if ino >= limit {
		return 0, false
	}
	m.markUsed(ino)
	m.hint = ino + 1
	return ino, true
}

// release clears ino's bit.
func (m *inodeMap) release(ino uint64) {
	if ino == 0 || !m.isUsed(ino) {
		return
	}
	clearBit(m.used, ino)
	m.nused--
	m.hint = min(m.hint, ino)
}

// blockUsed reports whether any inode of inode block ibn is in use.
func (m *inodeMap) blockUsed(ibn uint64) bool {
	for ino := ibn * m.geo.ipb; ino < (ibn+1)*m.geo.ipb; ino++ {
		if ino != 0 && m.isUsed(ino) {
			return true
		}
	}
	return false
}

// redirty marks pieces changed again (after a failed commit).
func (m *inodeMap) redirty(pieces []uint32) {
	for _, p := range pieces {
		if !ondisk.IsRecordPiece(p) { // the epoch's piece is planned anew
			m.dirty[p] = struct{}{}
		}
	}
}

// loadPieces fills the map from the volume's recovered pieces. An inode
// block number can never reach the volume's block count (each needs a
// block), which bounds what a damaged piece can make us allocate.
func (m *inodeMap) loadPieces(pieces map[uint32][]byte, numBlocks uint64) error {
	dst := make([]uint64, m.geo.perPiece)
	var sums []uint32
	if m.geo.summed {
		sums = make([]uint32, m.geo.perPiece)
	}
	for p, b := range pieces {
		if err := ondisk.DecodePiece(b, p, dst, sums); err != nil {
			return fmt.Errorf("%w: %w", err, ErrNeedsRepair)
		}
		if isNodePiece(p) {
			if !m.nodeMap {
				return fmt.Errorf("piece %d maps indirect blocks, which this file-system version names by address: %w", p, ErrNeedsRepair)
			}
			if err := m.loadNodePiece(p, dst, sums, numBlocks); err != nil {
				return err
			}
			continue
		}
		lo := uint64(p) * m.geo.perPiece
		for i, a := range dst {
			if a != 0 && lo+uint64(i) >= numBlocks {
				return fmt.Errorf("piece %d maps inode block %d on a volume of %d blocks: %w", p, lo+uint64(i), numBlocks, ErrNeedsRepair)
			}
			if a != 0 {
				m.setAddr(lo+uint64(i), a, get(sums, uint64(i)))
			}
		}
	}
	clear(m.dirty)
	return nil
}

// numBlocks is one past the highest inode-block number with an address.
func (m *inodeMap) numBlocks() uint64 { return uint64(len(m.addrs)) }
