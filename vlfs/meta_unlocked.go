package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vld"
)

// Read-only operations (GetAttr, Lookup, ReadDir, the planning of Read)
// load the metadata they need with FS.mu released. They run under FS.mu with fs.loads set: where
// one needs an inode block, a directory or an indirect block that is on
// disk only, the loader records what to read and fails the operation with
// errDeferredLoad instead of reading under FS.mu. readOnlyOp then reads it
// holding only the read gate (a freed block is not reused until a commit
// drains the gate), takes FS.mu again, installs it if what names it (the
// inode map entry, the directory's size and block addresses, the tree's
// pointer) still names what was read, and runs the operation again. The
// operations change nothing before their last load, so running one again
// is safe; an answer from a run that deferred a load is never returned,
// whatever error it gave. Operations that change the file system still
// load under FS.mu (they change what they load).

// errDeferredLoad is what a loader returns under fs.loads.
var errDeferredLoad = errors.New("metadata block on disk only")

// maxDeferredLoads bounds the unlocked loads of one operation; past it the
// rest load under FS.mu as before, so an operation racing a changing tree
// still ends.
const maxDeferredLoads = 16

type loadKind uint8

const (
	loadInodeBlock loadKind = iota + 1
	loadNode
	loadDir
)

// loadReq is one metadata load to do without FS.mu.
type loadReq struct {
	kind  loadKind
	ibn   uint64     // loadInodeBlock: the block number
	addr  vld.Addr   // loadInodeBlock: its address when asked
	in    *inode     // loadNode, loadDir
	miss  nodeMiss   // loadNode
	size  uint64     // loadDir: the directory's size when asked
	addrs []vld.Addr // loadDir: each block's address when asked
}

// deferredLoads records the first load an operation needed.
type deferredLoads struct {
	req loadReq
	set bool
}

func (l *deferredLoads) need(r loadReq) error {
	if !l.set {
		l.req, l.set = r, true
	}
	return errDeferredLoad
}

// needDir asks for directory in's nb blocks, each by its address; a node
// on the way that is on disk only is asked for first (nodeLocked defers it).
func (l *deferredLoads) needDir(fs *FS, in *inode, nb uint64) error {
	addrs := make([]vld.Addr, nb)
	for i := range addrs {
		a, err := fs.bmapLocked(in, uint64(i)) // an indirect block on disk only is asked for first
		if err != nil {
			return err
		}
		if a == 0 {
			return fmt.Errorf("directory %d: block %d is a hole: %w", in.ino, i, ErrCorrupt)
		}
		addrs[i] = a
	}
	return l.need(loadReq{kind: loadDir, in: in, size: in.d.Size, addrs: addrs})
}

// readOnlyOp runs op, which changes nothing before its last metadata load,
// under FS.mu with its loads done without it.
func (fs *FS) readOnlyOp(op func() error) error {
	fs.lock()
	defer fs.unlock()
	return fs.deferLoadsLocked(op)
}

// deferLoadsLocked is readOnlyOp for a caller that holds FS.mu and keeps
// it after (Read, which then reads its data holding the read gate).
func (fs *FS) deferLoadsLocked(op func() error) error {
	for tries := 0; ; tries++ {
		l := &fs.loadsBuf
		*l = deferredLoads{}
		if tries < maxDeferredLoads {
			fs.loads = l
		}
		err := op()
		fs.loads = nil
		if !l.set {
			return err
		}
		if err := fs.loadUnlocked(l.req); err != nil {
			return err
		}
	}
}

// loadUnlocked does one deferred load with FS.mu released during the
// device read. FS.mu is held on entry and on return.
func (fs *FS) loadUnlocked(r loadReq) error {
	switch r.kind {
	case loadNode:
		return fs.loadNodeUnlocked(r.in, &r.miss)
	case loadInodeBlock:
		b := make([]byte, fs.geo.bs)
		if err := fs.readUnlocked([]vld.Addr{r.addr}, [][]byte{b}); err != nil {
			return fmt.Errorf("reading inode block %d at %d: %w", r.ibn, r.addr, err)
		}
		if fs.iblocks[r.ibn] == nil && fs.imap.addr(r.ibn) == r.addr {
			if fs.geo.verifyMeta(b, fs.imap.sum(r.ibn)) != nil {
				// Perhaps rewritten in place while read: not installed;
				// the locked load the retries end in decides.
				return nil
			}
			fs.iblocks[r.ibn] = b
			fs.stats.unlockedMetaLoads.Add(1)
		}
		return nil
	case loadDir:
		slab := make([]byte, len(r.addrs)*fs.geo.bs)
		bufs := make([][]byte, len(r.addrs))
		for i := range bufs {
			bufs[i] = slab[i*fs.geo.bs : (i+1)*fs.geo.bs]
		}
		if err := fs.readUnlocked(r.addrs, bufs); err != nil {
			return fmt.Errorf("directory %d: reading its blocks: %w", r.in.ino, err)
		}
		return fs.installDirLocked(r, bufs)
	}
	return fmt.Errorf("deferred load of kind %d: %w", r.kind, ErrInvalid)
}

// readUnlocked reads blocks holding the read gate instead of FS.mu.
func (fs *FS) readUnlocked(addrs []vld.Addr, bufs [][]byte) error {
	fs.readGate.RLock()
	fs.unlockForLoad()
	err := fs.vol.ReadBlocks(addrs, bufs)
	fs.readGate.RUnlock()
	fs.unlockedHook()
	fs.lock()
	return err
}

// unlockForLoad releases FS.mu for a deferred load's device read without
// shrinking the caches: what the operation's earlier tries loaded stays in
// memory for its next try (an index step over a large file needs several
// loads in a row, and a shrink between them could take each away again).
// The operation's own unlock at its end is the safe point that shrinks.
func (fs *FS) unlockForLoad() { fs.mu.Unlock() }

// unlockedHook runs the test hook afterUnlockedRead, if set.
func (fs *FS) unlockedHook() {
	if h := fs.afterUnlockedRead; h != nil {
		h()
	}
}

// installDirLocked makes the blocks read for r the directory's state,
// unless the directory was loaded, changed or freed meanwhile.
func (fs *FS) installDirLocked(r loadReq, bufs [][]byte) error {
	in := r.in
	if fs.inodes[in.ino] != in || in.dir != nil || in.d.Size != r.size {
		return nil
	}
	for i, want := range r.addrs {
		if a, miss := fs.cachedBmapLocked(in, uint64(i)); miss != nil || a != want {
			return nil
		}
	}
	ds := &dirState{ents: map[string]dirEnt{}}
	for i, b := range bufs {
		_, sum, err := fs.bmapSumLocked(in, uint64(i)) // cached: the check above found no miss
		if err != nil {
			return err
		}
		if fs.checkBlock(in.ino, uint64(i), r.addrs[i], sum, b) != nil {
			// Perhaps rewritten in place while read: not installed; the
			// locked load the retries end in decides (and reports).
			return nil
		}
		if err := fs.decodeDirBlock(in, ds, uint32(i), b); err != nil {
			return err
		}
	}
	in.dir = ds
	fs.stats.unlockedMetaLoads.Add(1)
	return nil
}

// dirName is a name in a directory, for warm.
type dirName struct {
	dir  Ino
	name string
}

// warm loads what a change is about to need, the inodes inos, and the
// directories of names with the inodes their names lead to, with FS.mu
// released during the device reads (readOnlyOp), so that the change finds
// them in memory instead of reading them under FS.mu. It changes nothing
// and reports nothing: a change that misses anyway (evicted in between)
// loads under FS.mu as before, and reports its own errors.
// warmPathsLocked loads the inode of ino and the indirect blocks on the
// paths of its blocks [first, last] that exist on disk only, with FS.mu
// released during each device read (deferLoadsLocked), so that the write
// that follows finds them cached. It changes nothing, so running again
// after a load is safe; it reports nothing either: the write that follows
// meets any error itself. One lookup per leaf: a leaf's path is the path
// of all its blocks.
func (fs *FS) warmPathsLocked(ino Ino, first, last uint64) {
	fs.deferLoadsLocked(func() error {
		in, err := fs.getLocked(ino)
		if err != nil || !in.isReg() {
			return err
		}
		for lbn := max(first, fs.geo.direct); lbn <= last && lbn < fs.geo.maxBlock; {
			if _, err := fs.bmapLocked(in, lbn); err != nil {
				return err
			}
			_, slot := fs.geo.leafKey(lbn)
			lbn += fs.geo.per - slot // the next leaf's first block
		}
		return nil
	})
}

func (fs *FS) warm(inos []Ino, names ...dirName) {
	fs.readOnlyOp(func() error {
		for _, ino := range inos {
			fs.getLocked(ino)
		}
		for _, n := range names {
			d, err := fs.getLocked(n.dir)
			if err != nil || !d.isDir() {
				continue
			}
			if n.name == "" || isDot(n.name) {
				fs.dirLocked(d)
				continue
			}
			fs.childLocked(d, n.name)
		}
		return nil
	})
}
