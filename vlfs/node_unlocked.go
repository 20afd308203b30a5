package vlfs

import "errors"

// A read that needs an indirect block not in memory used to read it under
// FS.mu (nodeLocked), so a cold file's first read held every other
// operation of the mount for a device read: milliseconds on the real-time
// clock, and more behind a queue of write batches. Read now plans with
// loads deferred (meta_unlocked.go): at the first node on disk only,
// nodeLocked records it, and loadNodeUnlocked releases FS.mu, reads the
// node with only FS.readGate held, takes FS.mu again and installs the
// node if the tree still points where it read; then the read is planned
// again. The gate keeps the address from being reused
// meanwhile (a freed block goes back to the volume only after a commit
// drains the gate); a node moved or rewritten meanwhile shows as a
// different pointer (or, for a numbered node, a different map entry), and
// the copy read is dropped.

// nodeMiss is an indirect block needed and found on disk only: its key
// and its parent's pointer to it (an address, or a node number).
type nodeMiss struct {
	k   nodeKey
	ptr uint64
}

// cachedNodeLocked returns node k of in if it is loaded; else the first
// node on its path that is on disk but not loaded (miss), or neither (a
// hole: no node, no miss).
func (fs *FS) cachedNodeLocked(in *inode, k nodeKey) (*node, *nodeMiss) {
	if n := in.nodes[k]; n != nil {
		return n, nil
	}
	var ptr uint64
	if k.isRoot() {
		ptr = in.d.Indirect[k.root]
	} else {
		pk, slot := fs.geo.parentKey(k)
		p, miss := fs.cachedNodeLocked(in, pk)
		if p == nil {
			return nil, miss
		}
		ptr = p.ptrs[slot]
	}
	if ptr == 0 {
		return nil, nil
	}
	return nil, &nodeMiss{k, ptr}
}

// cachedBmapLocked is bmapLocked through loaded nodes only: the address
// of lbn, or the node to load first.
func (fs *FS) cachedBmapLocked(in *inode, lbn uint64) (uint64, *nodeMiss) {
	if lbn < fs.geo.direct {
		return in.d.Direct[lbn], nil
	}
	if lbn >= fs.geo.maxBlock {
		return 0, nil
	}
	k, slot := fs.geo.leafKey(lbn)
	n, miss := fs.cachedNodeLocked(in, k)
	if n == nil {
		return 0, miss
	}
	return n.ptrs[slot], nil
}

// cachedBmapSumLocked is cachedBmapLocked with the pointer's data
// checksum; miss reports a node on the way that is not loaded.
func (fs *FS) cachedBmapSumLocked(in *inode, lbn uint64) (a uint64, sum uint32, miss bool) {
	if lbn < fs.geo.direct {
		return in.d.Direct[lbn], in.d.DirectSum[lbn], false
	}
	if lbn >= fs.geo.maxBlock {
		return 0, 0, false
	}
	k, slot := fs.geo.leafKey(lbn)
	n, m := fs.cachedNodeLocked(in, k)
	if n == nil {
		return 0, 0, m != nil
	}
	return n.ptrs[slot], n.sum(slot), false
}

// loadNodeUnlocked loads the node miss names into in with FS.mu released
// during the device read. FS.mu is held on entry and on return; in may
// have been freed or changed meanwhile, and the node is installed only if
// its path still names what was read.
func (fs *FS) loadNodeUnlocked(in *inode, miss *nodeMiss) error {
	n, err := fs.treeNodeAtLocked(in, miss.k, miss.ptr)
	if err != nil {
		return err
	}
	fs.readGate.RLock()
	fs.unlockForLoad()
	err = fs.readTreeNode(in.ino, miss.k, n)
	fs.readGate.RUnlock()
	fs.unlockedHook()
	fs.lock()
	if errors.Is(err, ErrChecksum) {
		// Perhaps rewritten in place while read (in-place placement):
		// plan again; the locked load the retries end in decides.
		return nil
	}
	if err != nil {
		return err
	}
	if fs.inodes[in.ino] != in {
		return nil // freed or evicted: the caller looks it up again
	}
	_, now := fs.cachedNodeLocked(in, miss.k)
	if now == nil || *now != *miss {
		return nil // loaded, moved or cut meanwhile: plan again
	}
	if fs.numbered(miss.k) && fs.imap.node(miss.ptr) != n.addr {
		return nil // the numbered node was rewritten elsewhere
	}
	if in.nodes == nil {
		in.nodes = map[nodeKey]*node{}
	}
	in.nodes[miss.k] = n
	fs.nodes++
	fs.stats.unlockedNodeLoads.Add(1)
	return nil
}
