package vlfs

import (
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// The reverse map tells the compactor who owns a physical block, so that
// it can move the block and update the one pointer at it. It is a hint:
// every move checks that the owner still points at the block (compact
// move.go), so a stale entry costs a skipped block, never a wrong pointer.
//
// One uint64 per physical block in use (8 bytes per 4 KiB block: 2 MiB per
// GiB when the disk is full; pages of revMap), in memory only, never on
// disk:
//
//	bits 63..61  kind   (ownNone, ownIBlock, ownData, ownXattr, ownNode, ownInode)
//	bits 60..29  id     inode-block number (ownIBlock) or inode number
//	bits 28..0   aux    ownData: logical block; ownNode: root<<27 | height<<25 | idx
//
// ownInode says "some block of inode id, position not yet known": the
// mount walk records that much for free, and an index step (compact_index.go)
// resolves the inode into exact entries. A block whose owner does not fit
// the encoding (inode numbers of 2^32 and more, huge files) stays ownInode
// or ownNone, and the compactor treats it as pinned.
type owner uint64

const (
	ownNone owner = iota
	ownIBlock
	ownData
	ownXattr
	ownNode
	ownInode
)

const (
	ownKindShift = 61
	ownIDShift   = 29
	ownIDMax     = 1<<32 - 1
	ownAuxMax    = 1<<29 - 1
	nodeIdxMax   = 1<<25 - 1
)

func (o owner) kind() owner { return o >> ownKindShift }
func (o owner) id() uint64  { return uint64(o>>ownIDShift) & ownIDMax }
func (o owner) aux() uint64 { return uint64(o) & ownAuxMax }

// mkOwner packs an entry; an id or aux that does not fit gives ownNone.
func mkOwner(kind owner, id, aux uint64) owner {
	if id > ownIDMax || aux > ownAuxMax {
		return ownNone
	}
	return kind<<ownKindShift | owner(id)<<ownIDShift | owner(aux)
}

func iblockOwner(ibn uint64) owner        { return mkOwner(ownIBlock, ibn, 0) }
func dataOwner(ino Ino, lbn uint64) owner { return mkOwner(ownData, uint64(ino), lbn) }
func xattrOwner(ino Ino) owner            { return mkOwner(ownXattr, uint64(ino), 0) }
func inodeOwner(ino uint64) owner         { return mkOwner(ownInode, ino, 0) }
func (o owner) ino() Ino                  { return Ino(o.id()) }
func (o owner) isInodeMeta() bool         { k := o.kind(); return k == ownXattr || k == ownNode }
func (o owner) needsIndex() bool          { return o.kind() == ownInode }
func (o owner) movable() bool             { k := o.kind(); return k >= ownIBlock && k <= ownNode }
func nodeOwner(ino Ino, k nodeKey) owner {
	if k.idx > nodeIdxMax || k.root >= ondisk.NumIndirect || k.height > ondisk.NumIndirect {
		return ownNone // pinned: an index step could not do better
	}
	return mkOwner(ownNode, uint64(ino), uint64(k.root)<<27|uint64(k.height)<<25|k.idx)
}

// nodeKey is the key of an ownNode entry.
func (o owner) nodeKey() nodeKey {
	a := o.aux()
	return nodeKey{root: uint8(a >> 27), height: uint8(a>>25) & 3, idx: a & nodeIdxMax}
}

// revMap is the reverse map, guarded by FS.mu. It is paged: a page of
// revPageLen blocks is allocated at its first owner, holds its owners as a
// short list while it has at most revSparseMax of them, and becomes a
// dense array after that. So its memory follows the blocks in use, not
// the disk's size: eager placement can leave one block in every few MiB
// of a large disk (docs/disk-model.md, "Large disks"), where a dense map
// of 8 bytes per block kept a 4 KiB page resident per block. A full disk
// costs about what the dense map did (8 bytes per block, plus 1/64 for
// the page table). No pages (nil) means not built yet: every hook is
// then a no-op until the first use builds it.
type revMap struct {
	n     vld.Addr   // blocks in the volume
	pages []*revPage // one per revPageLen blocks; nil while empty
}

const (
	revPageBits = 9 // 512 blocks: a dense page is 4 KiB, one host page
	revPageLen  = 1 << revPageBits
	// revSparseMax owners fit a list of 16-byte entries in an eighth of
	// a dense page.
	revSparseMax = 32
)

type revPage struct {
	dense  []owner  // revPageLen owners, or nil while the page is a list
	sparse []revEnt // the owners of a page that is a list (no ownNone)
}

type revEnt struct {
	off uint16 // block within the page
	o   owner
}

// build makes the empty map of a volume of n blocks.
func (r *revMap) build(n vld.Addr) {
	r.n = n
	r.pages = make([]*revPage, (n+revPageLen-1)/revPageLen)
}

func (r *revMap) built() bool { return r != nil && r.pages != nil }

func (r *revMap) get(a vld.Addr) owner {
	if !r.built() || a >= r.n {
		return ownNone
	}
	return r.pages[a>>revPageBits].get(uint16(a & (revPageLen - 1)))
}

func (r *revMap) set(a vld.Addr, o owner) {
	if !r.built() || a == 0 || a >= r.n {
		return
	}
	p := r.pages[a>>revPageBits]
	if p == nil {
		if o == ownNone {
			return
		}
		p = &revPage{}
		r.pages[a>>revPageBits] = p
	}
	p.set(uint16(a&(revPageLen-1)), o)
}

func (p *revPage) get(off uint16) owner {
	switch {
	case p == nil:
		return ownNone
	case p.dense != nil:
		return p.dense[off]
	}
	for _, e := range p.sparse {
		if e.off == off {
			return e.o
		}
	}
	return ownNone
}

func (p *revPage) set(off uint16, o owner) {
	if p.dense != nil {
		p.dense[off] = o
		return
	}
	for i, e := range p.sparse {
		if e.off != off {
			continue
		}
		if o == ownNone { // drop it: the list holds owners only
			last := len(p.sparse) - 1
			p.sparse[i] = p.sparse[last]
			p.sparse = p.sparse[:last]
		} else {
			p.sparse[i].o = o
		}
		return
	}
	if o == ownNone {
		return
	}
	if len(p.sparse) < revSparseMax {
		p.sparse = append(p.sparse, revEnt{off: off, o: o})
		return
	}
	p.dense = make([]owner, revPageLen)
	for _, e := range p.sparse {
		p.dense[e.off] = e.o
	}
	p.dense[off] = o
	p.sparse = nil
}

// setIBlock is the inode map's hook (imap.go): inode block ibn is at a.
func (r *revMap) setIBlock(ibn uint64, a vld.Addr) {
	if r.built() {
		r.set(a, iblockOwner(ibn))
	}
}
