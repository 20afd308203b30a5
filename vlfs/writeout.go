package vlfs

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/vlfs/vlfs/internal/scratch"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// writeChunk bounds the blocks handed to one WriteBlocks call.
const writeChunk = 512

// pendingWrite is one block to write and what to do with its address.
type pendingWrite struct {
	buf   []byte
	apply func(a vld.Addr) error
	// near is the placement hint (vld.WriteOpts.Near): the block's old
	// copy when rep, else a neighbour; 0 for none. An in-place volume may
	// return the old copy itself: apply must then not free it.
	near vld.Addr
	rep  bool
	// follows says the block continues the one before it in the list
	// (the same file's previous block, both new): it carries that block's
	// hint, so the volume places them as one chain (docs/ranges.md).
	follows bool
}

// nearLocked is the placement hint of file block lbn: its old copy, else
// the previous block, else the inode's block.
func (fs *FS) nearLocked(in *inode, lbn uint64) (vld.Addr, bool) {
	if a, err := fs.bmapLocked(in, lbn); err == nil && isBlock(a) {
		return a, true
	}
	if lbn > 0 {
		if a, err := fs.bmapLocked(in, lbn-1); err == nil && isBlock(a) {
			return a, false
		}
	}
	return fs.imap.addr(uint64(in.ino) / fs.geo.ipb), false
}

// inodeHintLocked is the placement hint of inode block ibn: its old copy,
// which an in-place volume rewrites. Under range placement inode blocks
// carry none: a write with no hints goes anywhere near the head
// (docs/ranges.md).
func (fs *FS) inodeHintLocked(ibn uint64) vld.Addr {
	if fs.vol.Placement() == vld.PlaceRange {
		return 0
	}
	return fs.imap.addr(ibn)
}

// continueChain points the blocks at the start of a chunk that follow on
// from the previous chunk's last block (at last) at that block, now that
// it has an address: a file longer than a chunk stays one chain.
func continueChain(ws []pendingWrite, near []vld.Addr, last vld.Addr) {
	for i := 0; i < len(ws) && last != 0 && ws[i].follows && !ws[i].rep && ws[i].near == ws[0].near; i++ {
		near[i] = last
	}
}

// sortedDirtyLocked returns the dirty inodes in inode-number order, so that
// write-outs (and simulated times) are reproducible.
func (fs *FS) sortedDirtyLocked() []*inode {
	out := make([]*inode, 0, len(fs.dirty))
	for _, in := range fs.dirty {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *inode) int { return cmp.Compare(a.ino, b.ino) })
	return out
}

// writeOutLocked writes every dirty block: file data, directory and xattr
// blocks (one batch: they depend on nothing), indirect blocks bottom-up,
// then inode blocks (updating the inode map). On error the in-memory state
// stays consistent and dirty. While a commit is in flight the inode blocks
// are left dirty: the commit owns the inode map until it lands.
func (fs *FS) writeOutLocked() error {
	ins, err := fs.writeBelowInodesLocked()
	if err != nil || fs.committing {
		return err
	}
	if err := fs.writeInodeBlocksLocked(ins); err != nil {
		return err
	}
	fs.settleLocked(ins)
	return nil
}

// writeBelowInodesLocked writes everything dirty except inode blocks and
// returns the dirty inodes in order.
func (fs *FS) writeBelowInodesLocked() ([]*inode, error) {
	ins := fs.sortedDirtyLocked()
	if err := fs.writeDataLocked(ins, false); err != nil {
		return nil, err
	}
	for h := 1; h <= ondisk.NumIndirect; h++ {
		if err := fs.writeNodesLocked(ins, h); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// settleLocked unpins the inodes of ins that have nothing left to write.
// An inode of ins may have been freed and its number taken by a new inode
// since ins was listed (while a commit was in flight): only the listed
// inode itself is unpinned, never the newcomer that holds its number now.
func (fs *FS) settleLocked(ins []*inode) {
	for _, in := range ins {
		if in.hasDirtyState() {
			continue
		}
		if fs.dirty[in.ino] == in {
			delete(fs.dirty, in.ino)
		}
		if in.d.Free() && fs.inodes[in.ino] == in {
			delete(fs.inodes, in.ino)
			fs.nodes -= len(in.nodes)
		}
	}
	fs.compactDirtyLocked()
}

// dirtyRebuildMin is the peak below which fs.dirty is never rebuilt.
const dirtyRebuildMin = 1024

// compactDirtyLocked rebuilds fs.dirty once it holds an eighth of its peak
// or less. A Go map keeps the room it grew to, and every commit iterates
// fs.dirty (sortedDirtyLocked): after a storm of 100,000 creates, each
// later one-file fsync scanned the storm's empty slots, 35-41 us instead
// of 15-19 on memory (BenchmarkFsyncAfterStorm). The copy costs at most
// an eighth of the growth it undoes.
func (fs *FS) compactDirtyLocked() {
	if fs.dirtyPeak < dirtyRebuildMin || len(fs.dirty) > fs.dirtyPeak/8 {
		return
	}
	m := make(map[Ino]*inode, len(fs.dirty))
	maps.Copy(m, fs.dirty)
	fs.dirty, fs.dirtyPeak = m, len(m)
}

// writeDataLocked writes the buffered file blocks of ins and, unless
// dataOnly, their dirty directory and xattr blocks.
//
// When the volume has room for the data outside its reserve, data and
// metadata go in one WriteBlocks call (marked Meta): the data was already
// reserved when it was buffered, and one request instead of two is what
// makes small synchronous writes cheap. Otherwise the data goes first as
// a plain data write, which the volume may refuse.
func (fs *FS) writeDataLocked(ins []*inode, dataOnly bool) error {
	var data, meta []pendingWrite
	for _, in := range ins {
		d, err := fs.dataWritesLocked(in)
		if err != nil {
			return err
		}
		data = append(data, d...)
		if dataOnly {
			continue
		}
		m, err := fs.metaWritesLocked(in)
		if err != nil {
			return err
		}
		meta = append(meta, m...)
	}
	if len(data)+len(meta) <= writeChunk && fs.vol.FreeBlocks() >= int64(len(data)) {
		return fs.writeAllLocked(append(data, meta...), true)
	}
	if err := fs.writeAllLocked(data, false); err != nil {
		return err
	}
	return fs.writeAllLocked(meta, true)
}

// metaWritesLocked returns the writes of in's dirty directory blocks and
// xattr block (dropping an emptied xattr block at once).
func (fs *FS) metaWritesLocked(in *inode) ([]pendingWrite, error) {
	var out []pendingWrite
	if in.dir != nil && in.dir.ndirty > 0 {
		m, err := fs.dirWritesLocked(in)
		if err != nil {
			return nil, err
		}
		out = m
	}
	if in.xattrDirty {
		w, err := fs.xattrWriteLocked(in)
		if err != nil {
			return nil, err
		}
		if w.buf != nil {
			out = append(out, w)
		}
	}
	return out, nil
}

func (fs *FS) dataWritesLocked(in *inode) ([]pendingWrite, error) {
	if err := fs.settleInodeLocked(in); err != nil { // version 5: no zero blocks
		return nil, err
	}
	lbns := sortedLbns(in.data)
	out := make([]pendingWrite, 0, len(lbns))
	for j, lbn := range lbns {
		buf := in.data[lbn]
		if buf == nil {
			buf = fs.zero
		}
		var prev *pendingWrite
		if j > 0 && lbns[j-1] == lbn-1 {
			prev = &out[j-1]
		}
		w, err := fs.fileBlockWriteLocked(in, lbn, buf, prev, func(a vld.Addr) {
			fs.forgetDirtyLocked(in, lbn, in.data[lbn])
			fs.cm.recent.put(a, buf) // no longer the file's buffer: never changed again
		})
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// sortedLbns returns the block numbers of a file's buffered data, in order.
func sortedLbns(data map[uint64][]byte) []uint64 {
	lbns := make([]uint64, 0, len(data))
	for lbn := range data {
		lbns = append(lbns, lbn)
	}
	slices.Sort(lbns)
	return lbns
}

// fileBlockWriteLocked prepares the write of block lbn of in with contents
// buf. prev is the write listed just before it when that is block lbn-1 of
// the same file: a new block follows its hint, so the volume places them
// as one chain (docs/ranges.md). Its apply points the file at the new
// address, then runs after.
func (fs *FS) fileBlockWriteLocked(in *inode, lbn uint64, buf []byte, prev *pendingWrite, after func(vld.Addr)) (pendingWrite, error) {
	if err := fs.prepareLocked(in, lbn); err != nil {
		return pendingWrite{}, err
	}
	near, rep := fs.nearLocked(in, lbn)
	follows := !rep && prev != nil
	if follows {
		near = prev.near // the previous block has no new address yet
	}
	return pendingWrite{buf: buf, near: near, rep: rep, follows: follows, apply: func(a vld.Addr) error {
		n0 := fs.rec.freed
		sum := fs.geo.sum(buf)
		if err := fs.setPtrLocked(in, lbn, a, sum); err != nil {
			return err
		}
		fs.rec.frees += fs.rec.freed - n0 // the old copy's
		fs.logLandingLocked(in, lbn, a, sum)
		after(a)
		return nil
	}}, nil
}

func (fs *FS) dirWritesLocked(in *inode) ([]pendingWrite, error) {
	var out []pendingWrite
	for i, db := range in.dir.blocks {
		if !db.dirty {
			continue
		}
		if err := fs.prepareLocked(in, uint64(i)); err != nil {
			return nil, err
		}
		buf, err := fs.encodeDirBlockLocked(in, i)
		if err != nil {
			return nil, fmt.Errorf("directory %d block %d: %w: %w", in.ino, i, err, ErrCorrupt)
		}
		near, rep := fs.nearLocked(in, uint64(i))
		out = append(out, pendingWrite{buf: buf, near: near, rep: rep, apply: func(a vld.Addr) error {
			if err := fs.setPtrLocked(in, uint64(i), a, fs.geo.sum(buf)); err != nil {
				return err
			}
			db.dirty = false
			in.dir.ndirty--
			fs.dirtyMeta--
			return nil
		}})
	}
	return out, nil
}

// writeScratch is what writeAllLocked and writeNodesLocked hand the
// volume, kept from one call to the next: WriteBlocks copies the blocks
// (into its gathered run or to the device) before it returns and keeps
// none of these slices. Guarded by FS.mu.
type writeScratch struct {
	bufs  [][]byte
	near  []vld.Addr
	rep   []bool
	keys  []nodeKey
	nodes scratch.Slices[byte] // indirect-block encodings (EncodeIndirect overwrites them whole)
}

// writeAllLocked writes ws in chunks and applies each returned address.
func (fs *FS) writeAllLocked(ws []pendingWrite, meta bool) error {
	var last vld.Addr // where the previous chunk's last block went
	s := &fs.scratch
	used := min(len(ws), writeChunk)        // the first chunk is the largest
	defer func() { clear(s.bufs[:used]) }() // the blocks are their owners' again
	for len(ws) > 0 {
		n := min(len(ws), writeChunk)
		s.bufs = slices.Grow(s.bufs[:0], n)[:n]
		s.near = slices.Grow(s.near[:0], n)[:n]
		s.rep = slices.Grow(s.rep[:0], n)[:n]
		bufs := s.bufs
		o := vld.WriteOpts{Meta: meta, Near: s.near, Replaces: s.rep}
		for i := range bufs {
			bufs[i], o.Near[i], o.Replaces[i] = ws[i].buf, ws[i].near, ws[i].rep
		}
		continueChain(ws[:n], o.Near, last)
		addrs, err := fs.vol.WriteBlocks(bufs, o)
		if err != nil {
			return fs.volErr("write", err)
		}
		if len(addrs) != n {
			return fmt.Errorf("volume returned %d addresses for %d blocks: %w", len(addrs), n, ErrCorrupt)
		}
		for i, a := range addrs {
			if err := ws[i].apply(a); err != nil {
				return err
			}
		}
		last = addrs[n-1]
		ws = ws[n:]
	}
	return nil
}

// writeNodesLocked writes the dirty indirect blocks of height h, dropping
// the ones that point at nothing.
func (fs *FS) writeNodesLocked(ins []*inode, h int) error {
	var ws []pendingWrite
	for _, in := range ins {
		keys := fs.scratch.keys[:0]
		for k := range in.dirtyNodes {
			if int(k.height) == h {
				keys = append(keys, k)
			}
		}
		fs.scratch.keys = keys
		slices.SortFunc(keys, compareNodeKeys)
		for _, k := range keys {
			w, err := fs.nodeWriteLocked(in, k, fs.scratch.nodes.Get(len(ws), fs.geo.bs))
			if err != nil {
				return err
			}
			if w.buf != nil {
				ws = append(ws, w)
			}
		}
	}
	return fs.writeAllLocked(ws, true)
}

// compareNodeKeys orders indirect blocks by root, then index.
func compareNodeKeys(a, b nodeKey) int {
	if a.root != b.root {
		return cmp.Compare(a.root, b.root)
	}
	return cmp.Compare(a.idx, b.idx)
}

// nodeWriteLocked prepares the write of dirty node k, encoded into buf, or
// drops it at once if it is empty.
func (fs *FS) nodeWriteLocked(in *inode, k nodeKey, buf []byte) (pendingWrite, error) {
	n := in.nodes[k]
	if !slices.ContainsFunc(n.ptrs, func(a uint64) bool { return a != 0 }) {
		in.dropNode(k)
		fs.nodes--
		fs.dropTreeNodeLocked(in, k, n)
		return pendingWrite{}, fs.setTreePtrLocked(in, k, 0, 0)
	}
	if !k.isRoot() && !fs.numbered(k) {
		// Load the parent now, so that linking the new address in the
		// apply step (after the write) never has to read.
		pk, _ := fs.geo.parentKey(k)
		if _, err := fs.nodeLocked(in, pk, true); err != nil {
			return pendingWrite{}, err
		}
	}
	ondisk.EncodeIndirect(buf, uint64(in.ino), int(k.height), n.ptrs, n.sums)
	sum := fs.geo.sum(buf)
	near, rep := n.addr, n.addr != 0
	if !rep {
		near = fs.imap.addr(uint64(in.ino) / fs.geo.ipb)
	}
	if fs.vol.Placement() == vld.PlaceRange {
		// Rewritten at every append: near its old copy it would creep
		// into the file's own growth room. Anywhere nearby, as inode
		// blocks.
		near, rep = 0, false
	}
	return pendingWrite{buf: buf, near: near, rep: rep, apply: func(a vld.Addr) error {
		if n.addr != 0 && n.addr != a {
			fs.freeBlockLocked(n.addr)
		}
		in.cleanNode(k, n)
		return fs.nodeMovedLocked(in, k, n, a, sum)
	}}, nil
}

// xattrWriteLocked prepares the write of in's changed xattr block, or
// drops the block at once if no attribute is left.
func (fs *FS) xattrWriteLocked(in *inode) (pendingWrite, error) {
	if len(in.xattrs) == 0 {
		if in.d.Xattr != 0 {
			fs.freeBlockLocked(in.d.Xattr)
			in.d.Xattr, in.d.XattrSum = 0, 0
			in.d.Blocks--
		}
		in.xattrDirty = false
		in.changed()
		return pendingWrite{}, nil
	}
	buf, err := fs.encodeXattrsLocked(in)
	if err != nil {
		return pendingWrite{}, err
	}
	near, rep := in.d.Xattr, in.d.Xattr != 0
	if !rep {
		near = fs.imap.addr(uint64(in.ino) / fs.geo.ipb)
	}
	return pendingWrite{buf: buf, near: near, rep: rep, apply: func(a vld.Addr) error {
		if in.d.Xattr == a {
			// Rewritten in place: nothing to free or count.
		} else if in.d.Xattr != 0 {
			fs.freeBlockLocked(in.d.Xattr)
		} else {
			in.d.Blocks++
		}
		in.d.Xattr, in.d.XattrSum = a, fs.geo.sum(buf)
		in.xattrDirty = false
		in.changed()
		return nil
	}}, nil
}

// inodeGroupsLocked groups the inodes of ins whose record changed by
// inode block, in block order.
func (fs *FS) inodeGroupsLocked(ins []*inode) ([]uint64, map[uint64][]*inode) {
	byBlock := map[uint64][]*inode{}
	var ibns []uint64
	for _, in := range ins {
		if !in.dirty {
			continue
		}
		ibn := uint64(in.ino) / fs.geo.ipb
		if byBlock[ibn] == nil {
			ibns = append(ibns, ibn)
		}
		byBlock[ibn] = append(byBlock[ibn], in)
	}
	slices.Sort(ibns)
	return ibns, byBlock
}

// encodeInodeBlockLocked encodes group (inodes of block ibn) into the
// cached block and returns it, or drops the block and returns nil if none
// of its inodes is in use any more.
func (fs *FS) encodeInodeBlockLocked(ibn uint64, group []*inode) ([]byte, error) {
	blk, err := fs.inodeBlockLocked(ibn)
	if err != nil {
		return nil, err
	}
	for _, in := range group {
		off := (uint64(in.ino) % fs.geo.ipb) * ondisk.InodeSize
		in.d.Summed = fs.geo.summed
		in.d.Encode(blk[off:])
	}
	if !fs.imap.blockUsed(ibn) {
		fs.dropInodeBlockLocked(ibn, group)
		return nil, nil
	}
	return blk, nil
}

// writeInodeBlocksLocked encodes every changed inode into its inode block,
// writes those blocks and points the inode map at them. A block left with
// no inode in use is freed instead.
func (fs *FS) writeInodeBlocksLocked(ins []*inode) error {
	if fs.committing {
		// The commit in flight is writing the cached inode blocks as they
		// are (commitPlan): encoding into them now would tear its snapshot.
		return fmt.Errorf("vlfs: inode blocks written while a commit holds them: %w", ErrCorrupt)
	}
	ibns, byBlock := fs.inodeGroupsLocked(ins)
	var ws []pendingWrite
	for _, ibn := range ibns {
		group := byBlock[ibn]
		blk, err := fs.encodeInodeBlockLocked(ibn, group)
		if err != nil {
			return err
		}
		if blk == nil {
			continue
		}
		old := fs.inodeHintLocked(ibn)
		ws = append(ws, pendingWrite{buf: blk, near: old, rep: old != 0, apply: func(a vld.Addr) error {
			if old := fs.imap.addr(ibn); old != 0 && old != a {
				fs.freeBlockLocked(old)
			}
			fs.imap.setAddr(ibn, a, fs.geo.sum(blk))
			for _, in := range group {
				in.dirty = false
			}
			return nil
		}})
	}
	return fs.writeAllLocked(ws, true)
}

// dropInodeBlockLocked frees inode block ibn, none of whose inodes is in use.
func (fs *FS) dropInodeBlockLocked(ibn uint64, group []*inode) {
	if old := fs.imap.addr(ibn); old != 0 {
		fs.freeBlockLocked(old)
		fs.imap.setAddr(ibn, 0, 0)
	}
	delete(fs.iblocks, ibn)
	for _, in := range group {
		in.dirty = false
	}
}

// volErr converts a volume error, remembering fatal ones.
func (fs *FS) volErr(op string, err error) error {
	switch {
	case errors.Is(err, vld.ErrNoSpace):
		return fmt.Errorf("%s: %w: %w", op, err, ErrNoSpace)
	case errors.Is(err, vld.ErrReadOnly):
		return fmt.Errorf("%s: %w: %w", op, err, ErrReadOnly)
	}
	return fmt.Errorf("%s: %w", op, err)
}
