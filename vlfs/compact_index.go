package vlfs

import (
	"errors"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// indexReads bounds the indirect blocks one index step may read, so that
// a step stays short.
const indexReads = 8

// indexLocked resolves queued inodes into exact reverse-map entries:
// every clean inode whose blocks are all in memory, and at most budget
// indirect blocks read from disk. An inode with dirty state is left
// queued: its pointers are not final before the next write-out. It
// reports whether it resolved anything.
func (fs *FS) indexLocked(budget int) (bool, error) {
	fs.revLocked()
	worked := false
	for ino := range fs.cm.index {
		if budget <= 0 {
			break
		}
		in, err := fs.getLocked(ino)
		if errors.Is(err, ErrNotExist) {
			delete(fs.cm.index, ino)
			continue
		}
		if err != nil {
			return worked, err
		}
		if in.hasDirtyState() {
			continue
		}
		done, err := fs.learnInodeLocked(in, &budget)
		if err != nil {
			return worked, err
		}
		worked = true
		if done {
			delete(fs.cm.index, ino)
		}
	}
	return worked, nil
}

// learnInodeLocked records the exact owner of every block of in. It reads
// (and caches) indirect blocks not loaded, while *budget allows; done is
// false if it stopped for the budget.
func (fs *FS) learnInodeLocked(in *inode, budget *int) (done bool, err error) {
	r := fs.revLocked()
	for i, a := range in.d.Direct {
		if isBlock(a) { // unwritten: no block
			r.set(a, dataOwner(in.ino, uint64(i)))
		}
	}
	r.set(in.d.Xattr, xattrOwner(in.ino))
	done = true
	for root := 0; root < ondisk.NumIndirect; root++ {
		k := nodeKey{root: uint8(root), height: uint8(root + 1)}
		ok, err := fs.learnNodeLocked(in, k, in.d.Indirect[root], fs.geo.rootBase(root), budget)
		if err != nil {
			return false, err
		}
		done = done && ok
	}
	return done, nil
}

// learnNodeLocked records node k (at ptr) and everything below it.
func (fs *FS) learnNodeLocked(in *inode, k nodeKey, ptr, base uint64, budget *int) (bool, error) {
	if ptr == 0 && in.nodes[k] == nil {
		return true, nil
	}
	if in.nodes[k] == nil {
		if *budget <= 0 {
			return false, nil
		}
		*budget--
	}
	n, err := fs.nodeLocked(in, k, false)
	if err != nil || n == nil {
		return err == nil, err
	}
	r := &fs.cm.rev
	r.set(n.addr, nodeOwner(in.ino, k))
	done := true
	for s, c := range n.ptrs {
		idx := k.idx*fs.geo.per + uint64(s)
		if k.height == 1 {
			if isBlock(c) {
				r.set(c, dataOwner(in.ino, base+idx))
			}
			continue
		}
		ok, err := fs.learnNodeLocked(in, nodeKey{root: k.root, height: k.height - 1, idx: idx}, c, base, budget)
		if err != nil {
			return false, err
		}
		done = done && ok
	}
	return done, nil
}
