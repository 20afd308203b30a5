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
// One uint64 per physical block (8 bytes per 4 KiB block: 2 MiB per GiB),
// in memory only, never on disk:
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

// revMap is the reverse map, guarded by FS.mu. A nil own means not built
// yet: every hook is then a no-op until the first use allocates it.
type revMap struct {
	own []owner
}

func (r *revMap) get(a vld.Addr) owner {
	if r == nil || a >= vld.Addr(len(r.own)) {
		return ownNone
	}
	return r.own[a]
}

func (r *revMap) set(a vld.Addr, o owner) {
	if r != nil && a != 0 && a < vld.Addr(len(r.own)) {
		r.own[a] = o
	}
}

// setIBlock is the inode map's hook (imap.go): inode block ibn is at a.
func (r *revMap) setIBlock(ibn uint64, a vld.Addr) {
	if r != nil && r.own != nil {
		r.set(a, iblockOwner(ibn))
	}
}
