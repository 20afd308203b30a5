package vlfs

import (
	"errors"
	"fmt"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// inode is an active inode: its decoded record plus whatever in-memory
// state it carries. It is pinned (never evicted) while it is dirty.
type inode struct {
	ino   Ino
	d     ondisk.Inode
	dirty bool   // d changed since it was last encoded into its inode block
	ver   uint64 // bumped by every change of d, so a commit can tell whether d changed while it was in flight

	data  map[uint64][]byte // dirty file blocks by logical number; nil value = zero block
	nodes map[nodeKey]*node // loaded indirect blocks
	// dirtyNodes are the loaded nodes changed since last written, kept as
	// a set so that a commit and hasDirtyState need not scan every loaded
	// one: a large file's fsync would cost in proportion to its size.
	dirtyNodes map[nodeKey]*node
	dir        *dirState // directories: loaded entries (nil until needed)

	xattrs     map[string][]byte // nil until loaded
	xattrDirty bool

	// base is the record recovery would rebuild for this inode (its inode
	// block plus the records since the last full commit), when baseOK;
	// a record commit may carry only some differences from it (records.go).
	base   ondisk.Inode
	baseOK bool
}

// changed records that d changed (the caller also marks in dirty in FS).
func (in *inode) changed() {
	in.dirty = true
	in.ver++
}

func (in *inode) isDir() bool { return in.d.Mode&ondisk.ModeType == ondisk.ModeDir }
func (in *inode) isReg() bool { return in.d.Mode&ondisk.ModeType == ondisk.ModeReg }
func (in *inode) isLnk() bool { return in.d.Mode&ondisk.ModeType == ondisk.ModeLnk }

// hasDirtyState reports whether the inode must stay pinned.
func (in *inode) hasDirtyState() bool {
	if in.dirty || len(in.data) > 0 || in.xattrDirty || (in.dir != nil && in.dir.ndirty > 0) {
		return true
	}
	return len(in.dirtyNodes) > 0
}

// markDirtyLocked records that in has state to write at the next commit.
func (fs *FS) markDirtyLocked(in *inode) {
	fs.dirty[in.ino] = in
	fs.dirtyPeak = max(fs.dirtyPeak, len(fs.dirty))
	if fs.dirtySince.IsZero() {
		fs.dirtySince = wallNow()
	}
}

// touchLocked marks in's record changed.
func (fs *FS) touchLocked(in *inode) {
	in.changed()
	fs.markDirtyLocked(in)
}

// getLocked returns the live inode ino, loading it if needed.
func (fs *FS) getLocked(ino Ino) (*inode, error) {
	if fs.closed {
		return nil, fmt.Errorf("inode %d: file system closed: %w", ino, ErrInvalid)
	}
	if in := fs.inodes[ino]; in != nil {
		if in.d.Free() {
			return nil, fmt.Errorf("inode %d: %w", ino, ErrNotExist)
		}
		return in, nil
	}
	if ino == 0 || !fs.imap.isUsed(uint64(ino)) {
		return nil, fmt.Errorf("inode %d: %w", ino, ErrNotExist)
	}
	d, err := fs.readInodeLocked(uint64(ino))
	if err != nil {
		return nil, err
	}
	if d.Free() {
		return nil, fmt.Errorf("inode %d is in use but its slot is free: %w", ino, ErrCorrupt)
	}
	in := &inode{ino: ino, d: d, base: d, baseOK: true}
	fs.inodes[ino] = in
	return in, nil
}

// readInodeLocked decodes inode ino from its (cached) inode block. A slot
// never written decodes as a free inode.
func (fs *FS) readInodeLocked(ino uint64) (ondisk.Inode, error) {
	blk, err := fs.inodeBlockLocked(ino / fs.geo.ipb)
	if err != nil {
		return ondisk.Inode{}, err
	}
	off := (ino % fs.geo.ipb) * ondisk.InodeSize
	d, err := ondisk.DecodeInode(blk[off:], ino)
	if errors.Is(err, ondisk.ErrZeroed) {
		return ondisk.Inode{Ino: ino, Summed: fs.geo.summed}, nil
	}
	if err != nil {
		return ondisk.Inode{}, fmt.Errorf("%w: %w", err, ErrCorrupt)
	}
	if err := fs.geo.checkLayout(&d); err != nil {
		return ondisk.Inode{}, err
	}
	return d, nil
}

// checkLayout reports an inode record whose layout is not the file
// system's (a summed inode in a version-3 image or the other way round):
// its pointers would be read at the wrong offsets.
func (g geometry) checkLayout(d *ondisk.Inode) error {
	if d.Mode != 0 && d.Summed != g.summed {
		return fmt.Errorf("inode %d: layout summed=%v in a file system with summed=%v: %w", d.Ino, d.Summed, g.summed, ErrCorrupt)
	}
	d.Summed = g.summed // a free slot takes the file system's layout
	return nil
}

// inodeBlockLocked returns the current content of inode block ibn (all
// zero if it has no address yet). The slice is the cache's own.
func (fs *FS) inodeBlockLocked(ibn uint64) ([]byte, error) {
	if b := fs.iblocks[ibn]; b != nil {
		return b, nil
	}
	if a := fs.imap.addr(ibn); a != 0 && fs.loads != nil {
		return nil, fs.loads.need(loadReq{ibn: ibn, addr: a, kind: loadInodeBlock})
	}
	b := make([]byte, fs.geo.bs)
	if a := fs.imap.addr(ibn); a != 0 {
		if err := fs.vol.ReadBlock(a, b); err != nil {
			return nil, fmt.Errorf("reading inode block %d at %d: %w", ibn, a, err)
		}
		if err := fs.geo.verifyMeta(b, fs.imap.sum(ibn)); err != nil && !fs.salv.distrusts(ibn) {
			return nil, fmt.Errorf("inode block %d at %d: %w", ibn, a, err)
		}
	}
	fs.iblocks[ibn] = b
	return b, nil
}

// newInodeLocked allocates an inode of the given mode, owned by uid/gid.
func (fs *FS) newInodeLocked(mode, uid, gid uint32) (*inode, error) {
	ino, ok := fs.imap.alloc()
	if !ok {
		return nil, fmt.Errorf("no free inode number: %w", ErrNoSpace)
	}
	gen := uint64(0)
	if old := fs.inodes[Ino(ino)]; old != nil {
		gen = old.d.Gen
	} else if d, err := fs.readInodeLocked(ino); err == nil {
		gen = d.Gen
	}
	t := now()
	in := &inode{ino: Ino(ino), d: ondisk.Inode{Mode: mode, Nlink: 1, Uid: uid, Gid: gid, Ino: ino,
		Gen: gen + 1, Atime: t, Mtime: t, Ctime: t, Summed: fs.geo.summed}}
	fs.inodes[in.ino] = in
	fs.touchLocked(in)
	return in, nil
}

// freeInodeLocked releases in's number and blocks. Its record becomes a
// free slot (keeping the generation) at the next write-out.
func (fs *FS) freeInodeLocked(in *inode) error {
	if err := fs.truncateBlocksLocked(in, 0); err != nil {
		return err
	}
	if in.d.Xattr != 0 {
		fs.freeBlockLocked(in.d.Xattr)
	}
	in.d = ondisk.Inode{Ino: in.d.Ino, Gen: in.d.Gen, Summed: fs.geo.summed}
	in.data, in.nodes, in.dir, in.xattrs, in.xattrDirty = nil, nil, nil, nil, false
	fs.imap.release(uint64(in.ino))
	delete(fs.orphans, in.ino)
	delete(fs.linkable, in.ino)
	fs.touchLocked(in)
	return nil
}

// shrinkCachesLocked evicts clean state beyond the cache bounds.
func (fs *FS) shrinkCachesLocked() {
	lim := fs.limits
	if len(fs.iblocks) > lim.iblks {
		for ibn := range fs.iblocks {
			delete(fs.iblocks, ibn)
			if len(fs.iblocks) <= lim.iblks/2 {
				break
			}
		}
	}
	if fs.nodes > lim.nodes {
		fs.dropCleanNodesLocked(lim.nodes / 2)
	}
	if len(fs.inodes)-len(fs.dirty) > lim.inodes {
		for ino, in := range fs.inodes {
			if fs.dirty[ino] == nil && ino != RootIno {
				fs.nodes -= len(in.nodes)
				delete(fs.inodes, ino)
				if len(fs.inodes)-len(fs.dirty) <= lim.inodes/2 {
					break
				}
			}
		}
	}
}

// dropCleanNodesLocked forgets clean indirect blocks until at most keep
// remain loaded.
func (fs *FS) dropCleanNodesLocked(keep int) {
	for _, in := range fs.inodes {
		for k, n := range in.nodes {
			if !in.nodeDirty(k, n) {
				in.dropNode(k)
				fs.nodes--
			}
		}
		if fs.nodes <= keep {
			return
		}
	}
}
