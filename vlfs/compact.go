package vlfs

import (
	"github.com/vlfs/vlfs/vld"
)

// compaction is the file system's side of the idle-time compactor
// (package compactor; docs/compactor.md): the reverse map, the inodes
// whose block positions must be looked up again, and the blocks read
// ahead. Guarded by FS.mu. The compactor itself belongs to whoever runs
// it (the mount command: compactor.Background).
type compaction struct {
	rev revMap
	// index holds inodes some of whose blocks the reverse map does not
	// know exactly: recorded by the mount walk as "somewhere in inode
	// ino", or indirect/xattr blocks rewritten by a write-out (which
	// sets those pointers itself). An index step resolves them.
	index map[Ino]struct{}
	// cache holds blocks read ahead by Prefetch, by address. An entry is
	// dropped when its block is freed (noteFreeLocked), so a cached copy
	// is always the contents of a block still owned as listed.
	cache map[vld.Addr][]byte
	// recent holds the file data written last (recent.go): Prefetch
	// leaves it out and Move takes it from memory.
	recent recentBlocks
	moved  int64               // blocks moved since mount
	byKind [ownInode + 1]int64 // of which, by owner kind
	// unsettled counts blocks moved by MoveLater since the last commit
	// snapshot: a later Move or Settle must commit even if it moves
	// nothing itself.
	unsettled int
}

// revLocked returns the reverse map, building it on first use: the inode
// blocks are known from the inode map; other blocks are learnt from the
// mount walk and from the hooks where pointers are set.
func (fs *FS) revLocked() *revMap {
	r := &fs.cm.rev
	if !r.built() {
		r.build(vld.Addr(fs.vol.NumBlocks()))
		for ibn, a := range fs.imap.addrs {
			r.set(a, iblockOwner(uint64(ibn)))
		}
		fs.imap.rev = r
		fs.cm.index = map[Ino]struct{}{}
	}
	return r
}

// noteOwnedLocked is the mount walk's hook: block a belongs to inode ino
// (its exact place is looked up by an index step when needed).
func (fs *FS) noteOwnedLocked(ino uint64, a vld.Addr) {
	fs.revLocked().set(a, inodeOwner(ino))
}

// noteBlockLocked is setPtrLocked's hook: logical block lbn of in is now
// at a. Past the direct pointers the indirect blocks on its path will be
// rewritten by the next write-out, so in is queued for indexing.
func (fs *FS) noteBlockLocked(in *inode, lbn uint64, a vld.Addr) {
	fs.revLocked().set(a, dataOwner(in.ino, lbn))
	if lbn >= uint64(len(in.d.Direct)) {
		fs.cm.index[in.ino] = struct{}{}
	}
}

// noteFreeLocked is freeBlockLocked's hook: a no longer belongs to its
// owner. A freed indirect or xattr block is being replaced by a write-out,
// which sets the new pointer without a hook: the owner is queued for
// indexing.
func (fs *FS) noteFreeLocked(a vld.Addr) {
	r := fs.revLocked()
	if o := r.get(a); o.isInodeMeta() {
		fs.cm.index[o.ino()] = struct{}{}
	}
	r.set(a, ownNone)
	delete(fs.cm.cache, a)
	fs.cm.recent.drop(a)
}

// MovedBlocks is how many blocks the compactor moved since mount.
func (fs *FS) MovedBlocks() int64 {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.cm.moved
}
