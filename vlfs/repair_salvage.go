package vlfs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// salvage is what a repair mount could not read. A normal mount refuses
// an image whose metadata walk fails (ErrNeedsRepair); Repair mounts with
// Options.salvage, and the walk then records the damage and goes on:
//
//   - an inode record that does not decode is cleared (written again
//     free) and the repair removes the entries naming it, as e2fsck
//     clears a bad inode;
//   - an indirect block that does not decode (or, from version 2 on, a
//     node the map does not place) is cut from its tree: the pointer is
//     zeroed at once, so that nothing reads it again, and the repair
//     truncates the file at the first block the lost node covered (the
//     blocks below it cannot be found, and a hole would read as zeros
//     where the file had data: wrong bytes, never acceptable);
//
// and the repair itself (salvageUnreadable) empties directory blocks that
// do not decode and drops xattr blocks that do not, so that what they
// named becomes unreachable and goes to lost+found, or back into the
// directory its ".." names.
//
// Only content that does not decode is salvaged. A block the device
// fails to read is an I/O error, which may pass: the repair stops with
// it rather than throw away what the block holds.
type salvage struct {
	lost []lostInode // inode records that do not decode
	cuts []treeCut
	// unreplayed are inodes whose log records were dropped with them.
	unreplayed []uint64
	// rebuilt are directories that lost entries (emptied blocks, a cut
	// tree, or a root made again): a directory whose ".." names one of
	// them is linked back into it rather than into lost+found.
	rebuilt map[Ino]bool
	summed  bool // the file system's inode layout (geometry.summed)
	// distrusted are inode blocks that fail the checksum their map entry
	// names: none of their records was kept, and the repair rewrites or
	// drops each (its bytes are read only as the base of that rewrite).
	distrusted map[uint64]bool
}

// distrusts reports whether inode block ibn failed its map checksum in a
// salvaging walk (s may be nil: not a repair).
func (s *salvage) distrusts(ibn uint64) bool { return s != nil && s.distrusted[ibn] }

// lostInode is an inode record that does not decode.
type lostInode struct {
	ino  uint64
	addr vld.Addr // its inode block
	err  error
}

// treeCut is a node of a block tree the walk could not read.
type treeCut struct {
	ino    Ino
	height int
	base   uint64   // the first file block it covered
	addr   vld.Addr // 0: a version-2 node the map does not place
	err    error
}

// slots decodes inode block ibn (at a, in buf) record by record into
// used, keeping each that decodes and recording the others as lost. With
// distrust set (the block fails the checksum its map entry names: a stale
// or misplaced copy whose records may each look valid) no record is kept:
// every one in use is lost.
func (s *salvage) slots(buf []byte, ibn uint64, a vld.Addr, ipb uint64, used []ondisk.Inode, distrust error) []ondisk.Inode {
	if distrust != nil {
		if s.distrusted == nil {
			s.distrusted = map[uint64]bool{}
		}
		s.distrusted[ibn] = true
	}
	for k := range ipb {
		ino := ibn*ipb + k
		n, err := ondisk.DecodeInode(buf[k*ondisk.InodeSize:], ino)
		switch {
		case errors.Is(err, ondisk.ErrZeroed):
			continue // never written: free
		case distrust != nil && (err != nil || !n.Free()):
			err = distrust
		case err == nil && n.Ino == 0 && !n.Free():
			err = fmt.Errorf("inode 0 in use: %w", ErrCorrupt)
		case err == nil && n.Summed != s.summed && !n.Free():
			err = fmt.Errorf("inode %d: layout summed=%v, file system %v: %w", ino, n.Summed, s.summed, ErrCorrupt)
		case err == nil && n.Free():
			continue
		}
		if err != nil {
			s.lost = append(s.lost, lostInode{ino, a, err})
			continue
		}
		used = append(used, n)
	}
	return used
}

// cut records an unreadable node of ino's tree in a salvaging walk and
// lets the walk go on; otherwise it returns err.
func (w *walker) cut(ino uint64, h int, base uint64, a vld.Addr, err error) error {
	if w.salv == nil {
		return err
	}
	w.salv.cuts = append(w.salv.cuts, treeCut{Ino(ino), h, base, a, err})
	return nil
}

// salvageWalkedLocked runs after a salvaging walk, before the records are
// replayed: it zeroes the pointers naming unreadable nodes (replay and
// every later step would read them) and drops the records of inodes
// whose inode block was dropped (nothing can hold their blocks).
func (fs *FS) salvageWalkedLocked(rp *replay) error {
	for _, l := range fs.salv.lost {
		// A free record, dirty, overwrites the bad one at the commit.
		in := &inode{ino: Ino(l.ino), d: ondisk.Inode{Ino: l.ino}}
		fs.inodes[in.ino] = in
		fs.touchLocked(in)
	}
	for _, c := range fs.salv.cuts {
		if err := fs.cutTreeLocked(c); err != nil {
			return fmt.Errorf("cutting the tree of inode %d at block %d: %w", c.ino, c.base, err)
		}
	}
	if rp == nil {
		return nil
	}
	for ino := range rp.files {
		if !fs.imap.isUsed(ino) {
			delete(rp.files, ino)
			delete(rp.ptrs, ino)
			fs.salv.unreplayed = append(fs.salv.unreplayed, ino)
		}
	}
	slices.Sort(fs.salv.unreplayed)
	return nil
}

// cutTreeLocked zeroes the pointer to the node c names: in the inode for
// a root, else in the parent node (which the walk read, so it reads).
func (fs *FS) cutTreeLocked(c treeCut) error {
	in, err := fs.getLocked(c.ino)
	if err != nil {
		return err
	}
	r, rel := fs.geo.locate(c.base)
	k := nodeKey{root: uint8(r), height: uint8(c.height), idx: rel / fs.geo.span(c.height)}
	if k.isRoot() {
		in.d.Indirect[r], in.d.IndirectSum[r] = 0, 0
		fs.touchLocked(in)
		return nil
	}
	pk, slot := fs.geo.parentKey(k)
	p, err := fs.nodeLocked(in, pk, false)
	if err != nil {
		return err
	}
	if p == nil {
		return fmt.Errorf("its parent node is gone: %w", ErrCorrupt)
	}
	p.ptrs[slot] = 0
	in.dirtyNode(pk, p)
	fs.touchLocked(in)
	return nil
}

// salvageTrees reports what the walk dropped, truncates each cut file at
// its first lost block and makes a lost root again.
func (r *repairer) salvageTrees() error {
	fs, s := r.fs, r.fs.salv
	s.rebuilt = map[Ino]bool{}
	for _, l := range s.lost {
		r.found(Finding{Kind: FindUnreadable, Ino: Ino(l.ino), Addr: l.addr, Detail: fmt.Sprintf("inode %d in the inode block at %d: %v", l.ino, l.addr, l.err)})
		r.did("cleared inode %d (unreadable: %v): entries naming it are removed", l.ino, l.err)
	}
	for _, ino := range s.unreplayed {
		r.did("dropped the log records of inode %d: the inode was lost", ino)
	}
	at := map[Ino]uint64{}
	for _, c := range s.cuts {
		r.found(Finding{Kind: FindUnreadable, Ino: c.ino, Addr: c.addr, Detail: fmt.Sprintf("inode %d: block tree at file block %d: %v", c.ino, c.base, c.err)})
		if b, ok := at[c.ino]; !ok || c.base < b {
			at[c.ino] = c.base
		}
	}
	bs := uint64(fs.geo.bs)
	for _, ino := range sortedInos(at) {
		in, err := fs.getLocked(ino)
		if err != nil {
			return err
		}
		end := at[ino] * bs
		if in.isDir() {
			s.rebuilt[ino] = true
		}
		if in.d.Size <= end {
			r.did("inode %d (%s): an unreadable indirect block past its end was cut off", ino, r.describe(in))
			continue
		}
		r.did("inode %d (%s): truncated to %d bytes at an unreadable indirect block: bytes %d-%d are lost",
			ino, r.describe(in), end, end, in.d.Size-1)
		if err := fs.truncateBlocksLocked(in, at[ino]); err != nil {
			return err
		}
		in.d.Size = end
		if in.dir != nil {
			in.dir = nil // loaded from what is left, by salvageUnreadable's check
		}
		fs.changedLocked(in)
	}
	if !fs.imap.isUsed(uint64(RootIno)) {
		fs.imap.hint = min(fs.imap.hint, uint64(RootIno))
		if err := fs.makeRootLocked(); err != nil {
			return fmt.Errorf("making the root again: %w", err)
		}
		s.rebuilt[RootIno] = true
		r.did("made an empty root directory: the root inode was lost; what it held goes back by its \"..\" or to /%s", LostFound)
	}
	return nil
}

// salvageUnreadable empties the directory blocks and drops the xattr
// blocks the check could not read (c's unreadable findings); what they
// named becomes unreachable. It reports whether it changed anything.
func (r *repairer) salvageUnreadable(c *checker) (bool, error) {
	fs := r.fs
	changed := false
	for _, f := range c.errs {
		if f.Kind != FindUnreadable || f.Ino == 0 || !fs.imap.isUsed(uint64(f.Ino)) {
			continue
		}
		in, err := fs.getLocked(f.Ino)
		if err != nil {
			continue
		}
		if in.d.Xattr != 0 && f.Addr == in.d.Xattr {
			if _, err := fs.xattrsLocked(in); damaged(err) {
				r.did("inode %d (%s): xattr block at %d unreadable (%v): its extended attributes are dropped", in.ino, r.describe(in), in.d.Xattr, err)
				fs.freeBlockLocked(in.d.Xattr)
				in.d.Xattr, in.d.XattrSum, in.xattrs = 0, 0, nil
				in.d.Blocks--
				fs.touchLocked(in)
				changed = true
			}
			continue
		}
		if in.isDir() && in.dir == nil {
			ok, err := r.salvageDir(in)
			if err != nil {
				return changed, err
			}
			changed = changed || ok
		}
	}
	return changed, nil
}

// salvageDir loads directory in block by block, emptying each block that
// does not read or decode (it is written again, empty, by the commit).
func (r *repairer) salvageDir(in *inode) (bool, error) {
	fs := r.fs
	nb := in.d.Size / uint64(fs.geo.bs)
	if in.d.Size%uint64(fs.geo.bs) != 0 || nb > 1<<31 {
		return false, nil // a size no block count explains: left to the check
	}
	ds := &dirState{ents: map[string]dirEnt{}}
	in.dir = ds
	buf := make([]byte, fs.geo.bs)
	var lost []uint32
	for i := uint32(0); uint64(i) < nb; i++ {
		err := fs.loadDirBlockLocked(in, ds, i, buf)
		if err == nil {
			continue
		}
		if !damaged(err) {
			in.dir = nil
			return false, err
		}
		for _, name := range ds.blocks[i].names {
			delete(ds.ents, name)
		}
		db := &dirBlock{inRoom: true}
		ds.blocks[i] = db
		ds.room = append(ds.room, i)
		fs.dirtyDirBlockLocked(in, db)
		lost = append(lost, i)
		r.did("directory %d (%s): block %d unreadable (%v): emptied; the entries it held are lost", in.ino, r.describe(in), i, err)
	}
	if len(lost) == 0 {
		in.dir = nil
		return false, nil
	}
	r.fs.salv.rebuilt[in.ino] = true
	fs.changedLocked(in)
	return true, nil
}

// damaged tells content that does not decode from a failure to read it.
func damaged(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ondisk.ErrCorrupt) || errors.Is(err, ondisk.ErrZeroed)
}

// found adds a finding the salvage met (the walk's, not the check's).
func (r *repairer) found(f Finding) {
	r.res.Found = append(r.res.Found, f)
}

// describe names in for a report: its path for a directory still
// reachable by its ".." chain, else its type.
func (r *repairer) describe(in *inode) string {
	if in.isDir() {
		if p, ok := r.dirPath(in.ino); ok {
			return p
		}
		return "a directory"
	}
	return "a file"
}

// dirPath is the path of directory ino from the root, following ".."
// and looking each name up in the parent's loaded or readable entries.
func (r *repairer) dirPath(ino Ino) (string, bool) {
	fs := r.fs
	var parts []string
	for hops := 0; ino != RootIno; hops++ {
		in, err := fs.getLocked(ino)
		if err != nil || hops > 4096 {
			return "", false
		}
		p, err := fs.getLocked(Ino(in.d.Parent))
		if err != nil || !p.isDir() {
			return "", false
		}
		ds, err := fs.dirLocked(p)
		if err != nil {
			return "", false
		}
		name := ""
		for n, e := range ds.ents {
			if e.ino == ino {
				name = n
				break
			}
		}
		if name == "" {
			return "", false
		}
		parts = append(parts, name)
		ino = p.ino
	}
	slices.Reverse(parts)
	return "/" + strings.Join(parts, "/"), true
}
