package vlfs

import (
	"errors"
	"slices"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// errReadOnlyCommit tells commit there is nothing to commit.
var errReadOnlyCommit = errors.New("vlfs: read-only, nothing to commit")

// commitPlan is a commit's snapshot: the encoded inode blocks to write and
// the inode-map pieces as they are before those blocks land. It holds
// copies, so the volume can use it without FS.mu.
type commitPlan struct {
	perPiece uint64
	size     int // piece payload size
	payload  func(addrs []vld.Addr) map[uint32][]byte

	ins    []*inode   // every inode dirty when the plan was made
	ibns   []uint64   // inode blocks to write, in order
	bufs   [][]byte   // their contents (copies)
	near   []vld.Addr // placement hints: their old copies (none under range placement)
	groups [][]inodeVer
	pieces []uint32              // pieces to commit, in order
	base   map[uint32][]vld.Addr // their addresses before this commit
}

// inodeVer is an inode and the version of its record that a plan encoded.
type inodeVer struct {
	in  *inode
	ver uint64
}

// planCommitLocked writes out everything below the inode blocks and builds
// the plan for the rest.
func (fs *FS) planCommitLocked() (*commitPlan, error) {
	ins, err := fs.writeBelowInodesLocked()
	if err != nil {
		return nil, err
	}
	p := &commitPlan{perPiece: fs.geo.perPiece, size: fs.geo.payload, ins: ins, base: map[uint32][]vld.Addr{}}
	ibns, byBlock := fs.inodeGroupsLocked(ins)
	for _, ibn := range ibns {
		group := byBlock[ibn]
		blk, err := fs.encodeInodeBlockLocked(ibn, group)
		if err != nil {
			fs.imap.redirty(p.pieces)
			return nil, err
		}
		if blk == nil {
			continue // freed: the inode map change is already pending
		}
		p.ibns = append(p.ibns, ibn)
		p.bufs = append(p.bufs, slices.Clone(blk))
		p.near = append(p.near, fs.inodeHintLocked(ibn))
		vs := make([]inodeVer, len(group))
		for i, in := range group {
			vs[i] = inodeVer{in, in.ver}
		}
		p.groups = append(p.groups, vs)
		fs.imap.markPiece(ibn)
	}
	p.pieces = fs.imap.takeDirtySet()
	for _, pc := range p.pieces {
		p.base[pc] = fs.imap.pieceAddrs(pc)
	}
	p.payload = p.encode
	return p, nil
}

// encode returns the payload of every planned piece with the inode blocks
// at addrs. It touches nothing but the plan (the volume calls it under its
// own lock).
func (p *commitPlan) encode(addrs []vld.Addr) map[uint32][]byte {
	out := make(map[uint32][]byte, len(p.pieces))
	for _, pc := range p.pieces {
		as := slices.Clone(p.base[pc])
		lo := uint64(pc) * p.perPiece
		for i, ibn := range p.ibns {
			if i < len(addrs) && ibn >= lo && ibn < lo+p.perPiece {
				as[ibn-lo] = addrs[i]
			}
		}
		out[pc] = encodePiece(pc, as, p.size)
	}
	return out
}

// writeOpts are the placement hints of the inode blocks: each replaces its
// old copy, if it has one.
func (p *commitPlan) writeOpts() vld.WriteOpts {
	o := vld.WriteOpts{Meta: true, Near: p.near, Replaces: make([]bool, len(p.near))}
	for i, a := range p.near {
		o.Replaces[i] = a != 0
	}
	return o
}

func encodePiece(pc uint32, addrs []vld.Addr, size int) []byte {
	b := make([]byte, size)
	ondisk.EncodePiece(b, pc, addrs)
	return b
}

// applyCommitLocked records where the inode blocks landed: the inode map
// (already durable in the committed pieces, so not marked changed), the
// inode-block cache, and which inodes are now clean (those whose record did
// not change while the commit was in flight).
func (fs *FS) applyCommitLocked(p *commitPlan, addrs []vld.Addr) {
	for i, ibn := range p.ibns {
		if old := fs.imap.addr(ibn); old != 0 && old != addrs[i] { // equal: rewritten in place
			fs.freeBlockLocked(old)
		}
		fs.imap.setAddrClean(ibn, addrs[i])
		fs.iblocks[ibn] = p.bufs[i]
		for _, v := range p.groups[i] {
			if fs.inodes[v.in.ino] == v.in && v.in.ver == v.ver {
				v.in.dirty = false
			}
		}
	}
	fs.settleLocked(p.ins)
}
