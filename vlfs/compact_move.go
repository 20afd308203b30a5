package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// A compactor move relocates blocks the way a write-out would rewrite
// them: the copy goes into a hole (vld.Volume.PlugHoles), the one pointer
// at the block is changed (inode, indirect block, inode map), and the old
// copy is freed through freeBlockLocked, so that the volume reuses it only
// once the commit that follows is durable. A crash before that commit
// recovers the old pointers and the old copy, intact; after it, the new
// ones. Changing a pointer makes its holder dirty: the commit rewrites the
// inode block (and, for a block below an indirect block, the indirect
// blocks on its path), as any update of the file would.

// move is one block to relocate.
type move struct {
	addr vld.Addr
	o    owner
	in   *inode // ownData, ownXattr, ownNode
	n    *node  // ownNode
	buf  []byte
	// recent: buf came from the recently written blocks (recent.go)
	recent bool
}

// compactMove moves the blocks of bs still owned as listed and, with
// commit, commits them with any moves left pending before. Without commit
// (compactor.Settler's MoveLater) the pointer changes wait for the next
// commit, so holders that several moves change (an indirect block, the
// inode block, the inode map's piece) are written once, not once per
// step. It returns vld.ErrBusy and vld.ErrNoSpace from the volume wrapped.
func (fs *FS) compactMove(bs []compactor.Block, o vld.HoleOpts, commit bool) (int, error) {
	fs.commitMu.Lock()
	fs.lock()
	n, sync, err := fs.relocateLocked(bs, o)
	if !commit && n > 0 {
		fs.cm.unsettled += n
		// The flusher commits them within FlushInterval if nothing else
		// does (a moved inode block changes only the inode map).
		fs.markDirtySinceLocked()
	}
	pending := fs.cm.unsettled > 0
	fs.unlock()
	fs.commitMu.Unlock()
	if err != nil {
		return 0, err
	}
	// A deferred step that moved nothing because owners were dirty
	// commits after all: the commit makes them clean for the next try,
	// and a step that costs no time would tell the compactor there is
	// nothing to do.
	if (commit && (n > 0 || sync || pending)) || (!commit && n == 0 && sync) {
		if err := fs.compactionCommit(); err != nil {
			return 0, fmt.Errorf("compaction commit: %w", err)
		}
	}
	return n, nil
}

// settleMoves commits moves compactMove left pending, if any.
func (fs *FS) settleMoves() error {
	fs.lock()
	pending := fs.cm.unsettled > 0
	fs.unlock()
	if !pending {
		return nil
	}
	if err := fs.compactionCommit(); err != nil {
		return fmt.Errorf("compaction commit: %w", err)
	}
	return nil
}

// relocateLocked relocates what it can; sync says a commit is wanted even if
// nothing moved (an owner was dirty: the commit makes it clean for the
// next try). It releases FS.mu for the device work: the metadata the checks
// need loads as a read-only operation's does (meta_unlocked.go), and the
// blocks are read and their copies written with FS.mu released
// (copyMovesLocked); only the pointer changes happen under it.
func (fs *FS) relocateLocked(bs []compactor.Block, o vld.HoleOpts) (int, bool, error) {
	if err := fs.compactableLocked(); err != nil {
		return 0, false, err
	}
	var ms []move
	var sync bool
	err := fs.deferLoadsLocked(func() (err error) {
		ms, sync, err = fs.checkMovesLocked(bs)
		return err
	})
	if err != nil || len(ms) == 0 {
		return 0, sync, err
	}
	addrs, err := fs.copyMovesLocked(ms, o)
	if err != nil {
		return 0, sync, err
	}
	return fs.repointMovesLocked(ms, addrs, sync)
}

// copyMovesLocked writes a copy of each block of ms into a hole and returns
// the copies' addresses. The device reads and writes run with FS.mu
// released. The caller holds commitMu, so no commit hands freed blocks back
// to the volume meanwhile: an address read is not reused under the read,
// whatever its owner does, and repointMovesLocked keeps only the moves whose
// owners did nothing.
func (fs *FS) copyMovesLocked(ms []move, o vld.HoleOpts) ([]vld.Addr, error) {
	addrs, bufs := fs.readMovesLocked(ms)
	all := make([][]byte, len(ms))
	for i, m := range ms {
		all[i] = m.buf
	}
	fs.unlock()
	defer fs.lock()
	if len(addrs) > 0 {
		if err := fs.vol.ReadBlocks(addrs, bufs); err != nil {
			return nil, fmt.Errorf("reading blocks to move: %w", err)
		}
	}
	copies, err := fs.vol.PlugHoles(all, o)
	if err != nil {
		return nil, fmt.Errorf("moving %d blocks: %w", len(ms), err)
	}
	fs.stats.unlockedCompactBlocks.Add(int64(len(addrs) + len(copies)))
	fs.unlockedHook()
	return copies, nil
}

// repointMovesLocked points the owner of each ms[i] at its copy addrs[i],
// if it still owns the block and has no newer version waiting (the checks
// of checkMovesLocked, run again: FS.mu was released since); a copy not
// taken is freed as any replaced block is.
func (fs *FS) repointMovesLocked(ms []move, addrs []vld.Addr, sync bool) (int, bool, error) {
	cur := make([]move, len(ms))
	take := make([]bool, len(ms))
	err := fs.compactableLocked()
	if err == nil {
		err = fs.deferLoadsLocked(func() error {
			for i, m := range ms {
				cur[i] = move{addr: m.addr, o: m.o, buf: m.buf, recent: m.recent}
				ok, dirty, err := fs.ownsLocked(&cur[i])
				if err != nil {
					return err
				}
				take[i] = ok && !dirty
				sync = sync || dirty
			}
			return nil
		})
	}
	if err != nil {
		for _, a := range addrs {
			fs.freeBlockLocked(a)
		}
		return 0, true, err
	}
	n := 0
	for i, m := range cur {
		if !take[i] {
			fs.freeBlockLocked(addrs[i])
			continue
		}
		if err := fs.repointLocked(m, addrs[i]); err != nil {
			for _, a := range addrs[i+1:] {
				fs.freeBlockLocked(a)
			}
			fs.cm.moved += int64(n)
			return n, true, err
		}
		n++
		fs.cm.byKind[m.o.kind()]++
		if m.recent {
			fs.cm.recent.hits++
		}
	}
	fs.cm.moved += int64(n)
	return n, sync, nil
}

// checkMovesLocked keeps the blocks of bs whose owner still points at
// them and has no newer version waiting to be written (dirty = true then:
// the block will be rewritten anyway). A stale reverse-map entry is
// cleared.
func (fs *FS) checkMovesLocked(bs []compactor.Block) ([]move, bool, error) {
	r := fs.revLocked()
	var out []move
	dirty := false
	seen := map[vld.Addr]bool{}
	for _, b := range bs {
		o := owner(b.Owner)
		if seen[b.Addr] || r.get(b.Addr) != o {
			continue
		}
		seen[b.Addr] = true
		m := move{addr: b.Addr, o: o}
		ok, isDirty, err := fs.ownsLocked(&m)
		if err != nil {
			return nil, false, err
		}
		dirty = dirty || isDirty
		switch {
		case ok && !isDirty:
			out = append(out, m)
		case !ok:
			r.set(b.Addr, ownNone)
		}
	}
	return out, dirty, nil
}

// ownsLocked reports whether m's owner still points at m.addr, and
// whether that pointer or block is about to be rewritten.
func (fs *FS) ownsLocked(m *move) (ok, dirty bool, err error) {
	if m.o.kind() == ownIBlock {
		return fs.imap.addr(m.o.id()) == m.addr, false, nil
	}
	in, err := fs.getLocked(m.o.ino())
	if errors.Is(err, ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	m.in = in
	switch m.o.kind() {
	case ownXattr:
		return in.d.Xattr == m.addr, in.xattrDirty, nil
	case ownNode:
		n, err := fs.nodeLocked(in, m.o.nodeKey(), false)
		if err != nil || n == nil {
			return false, false, err
		}
		m.n = n
		return n.addr == m.addr, in.nodeDirty(m.o.nodeKey(), n), nil
	}
	lbn := m.o.aux()
	a, err := fs.bmapLocked(in, lbn)
	if err != nil || a != m.addr {
		return false, false, err
	}
	_, buffered := in.data[lbn]
	return true, buffered || fs.dirBlockDirtyLocked(in, lbn), nil
}

func (fs *FS) dirBlockDirtyLocked(in *inode, lbn uint64) bool {
	return in.dir != nil && lbn < uint64(len(in.dir.blocks)) && in.dir.blocks[lbn].dirty
}

// readMovesLocked fills in the contents of ms from memory: read ahead by
// Prefetch, or encoded (an indirect block loaded and clean is what its
// address holds). It returns the blocks still to read, with a buffer each,
// already set as the move's.
func (fs *FS) readMovesLocked(ms []move) ([]vld.Addr, [][]byte) {
	var addrs []vld.Addr
	var bufs [][]byte
	for i := range ms {
		if b, ok := fs.cm.cache[ms[i].addr]; ok {
			ms[i].buf = b
			continue
		}
		if b, ok := fs.cm.recent.get(ms[i].addr); ok {
			ms[i].buf, ms[i].recent = b, true
			continue
		}
		if m := ms[i]; m.o.kind() == ownNode && m.in.nodeCleanAt(m.o.nodeKey(), m.n, m.addr) {
			ms[i].buf = make([]byte, fs.geo.bs)
			ondisk.EncodeIndirect(ms[i].buf, uint64(m.in.ino), int(m.o.nodeKey().height), m.n.ptrs, m.n.sums)
			continue
		}
		ms[i].buf = make([]byte, fs.geo.bs)
		addrs, bufs = append(addrs, ms[i].addr), append(bufs, ms[i].buf)
	}
	return addrs, bufs
}

// repointLocked points m's owner at a and frees the old copy.
func (fs *FS) repointLocked(m move, a vld.Addr) error {
	switch m.o.kind() {
	case ownIBlock:
		fs.freeBlockLocked(m.addr)
		fs.imap.setAddr(m.o.id(), a, fs.imap.sum(m.o.id())) // the same bytes
	case ownData:
		// The copy keeps the pointer's checksum: one computed from the
		// bytes just read would vouch for whatever damage they carry.
		_, sum, err := fs.bmapSumLocked(m.in, m.o.aux())
		if err != nil {
			return err
		}
		if err := fs.setPtrLocked(m.in, m.o.aux(), a, sum); err != nil {
			return err
		}
		fs.cm.recent.put(a, m.buf) // read-only from here on, as every m.buf
		return nil
	case ownXattr:
		fs.freeBlockLocked(m.addr)
		m.in.d.Xattr = a
		fs.touchLocked(m.in)
		fs.cm.rev.set(a, m.o)
	case ownNode:
		fs.freeBlockLocked(m.addr)
		k := m.o.nodeKey()
		if err := fs.nodeMovedLocked(m.in, k, m.n, a, fs.nodeSumLocked(m.in, k, m.n)); err != nil {
			return err
		}
		fs.cm.rev.set(a, m.o)
	default:
		return fmt.Errorf("moving block %d of unknown owner %#x: %w", m.addr, uint64(m.o), ErrCorrupt)
	}
	return nil
}

// compactionCommit commits with placement kept out of empty tracks where
// holes will do: the holders a move rewrites (indirect and inode blocks,
// the inode map's entries) would otherwise fill the tracks the compactor
// is emptying.
func (fs *FS) compactionCommit() error {
	fs.vol.SetAvoidEmpty(true)
	defer fs.vol.SetAvoidEmpty(false)
	return fs.syncAll()
}
