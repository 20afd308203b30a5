package vlfs

import (
	"errors"

	"github.com/vlfs/vlfs/internal/scratch"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// errReadOnlyCommit tells commit there is nothing to commit.
var errReadOnlyCommit = errors.New("vlfs: read-only, nothing to commit")

// commitPlan is a commit's snapshot: the encoded inode blocks to write and
// the inode-map pieces as they are before those blocks land. The volume
// uses it without FS.mu: its inode blocks are the cache's own buffers,
// which nothing encodes into while FS.committing is set (writeOutLocked
// leaves inode blocks alone then), and the rest is the plan's.
type commitPlan struct {
	perPiece uint64
	size     int // piece payload size
	payload  func(addrs []vld.Addr) map[uint32][]byte

	ins    []*inode   // every inode dirty when the plan was made
	ibns   []uint64   // inode blocks to write, in order
	bufs   [][]byte   // their contents (the cached blocks, unchanged until the plan is applied)
	sums   []uint32   // their checksums (summed geometry; else nil)
	near   []vld.Addr // placement hints: their old copies (none under range placement)
	groups [][]inodeVer
	pieces []uint32 // pieces to commit, in order
	// epoch, if not 0, is the record epoch this commit starts: pieces
	// then ends with the epoch's piece (records.go).
	epoch uint64
	// scratch holds each piece's addresses before this commit (base[i]
	// for pieces[i]) and the payloads encode builds from them.
	scratch *planScratch
}

// planScratch is the part of a plan that the volume copies before the
// commit returns, kept from one commit to the next so that a small commit
// allocates no fresh piece-sized buffers. Guarded by FS.commitMu: one plan
// at a time uses it.
type planScratch struct {
	kept     scratch.Slices[vld.Addr]
	base     [][]vld.Addr // this plan's: base[i] is pieces[i]'s addresses
	keptSums scratch.Slices[uint32]
	baseSums [][]uint32 // and their checksums (nil when not summed)
	payloads scratch.Slices[byte]
	out      map[uint32][]byte
}

// inodeVer is an inode, the version of its record that a plan encoded
// and that record.
type inodeVer struct {
	in  *inode
	ver uint64
	d   ondisk.Inode
}

// planCommitLocked writes out everything below the inode blocks and builds
// the plan for the rest.
func (fs *FS) planCommitLocked() (*commitPlan, error) {
	ins, err := fs.writeBelowInodesLocked()
	if err != nil {
		return nil, err
	}
	p := &commitPlan{perPiece: fs.geo.perPiece, size: fs.geo.payload, ins: ins, scratch: &fs.plan}
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
		p.bufs = append(p.bufs, blk)
		if fs.geo.summed {
			p.sums = append(p.sums, ondisk.DataSum(blk))
		}
		p.near = append(p.near, fs.inodeHintLocked(ibn))
		vs := make([]inodeVer, len(group))
		for i, in := range group {
			vs[i] = inodeVer{in, in.ver, in.d}
		}
		p.groups = append(p.groups, vs)
		fs.imap.markPiece(ibn)
	}
	p.pieces, p.epoch = fs.epochPieceLocked(fs.imap.takeDirtySet())
	s := p.scratch
	s.base, s.baseSums = s.base[:0], s.baseSums[:0]
	for i, pc := range p.pieces {
		if ondisk.IsRecordPiece(pc) {
			s.base, s.baseSums = append(s.base, nil), append(s.baseSums, nil)
			continue
		}
		as := s.kept.Get(i, int(fs.geo.perPiece))
		var ss []uint32
		if fs.geo.summed {
			ss = s.keptSums.Get(i, int(fs.geo.perPiece))
		}
		fs.imap.pieceAddrs(pc, as, ss)
		s.base, s.baseSums = append(s.base, as), append(s.baseSums, ss)
	}
	p.payload = p.encode
	return p, nil
}

// encode returns the payload of every planned piece with the inode blocks
// at addrs. It touches nothing but the plan (the volume calls it under its
// own lock, once per commit, and copies what it keeps). It sets the new
// addresses in the plan's copy of each piece, so a second call with the
// same addrs returns the same payloads.
func (p *commitPlan) encode(addrs []vld.Addr) map[uint32][]byte {
	s := p.scratch
	if s.out == nil {
		s.out = make(map[uint32][]byte)
	}
	clear(s.out)
	for j, pc := range p.pieces {
		if ondisk.IsRecordPiece(pc) {
			b := s.payloads.Get(j, ondisk.EpochSize)
			_ = ondisk.EncodeEpoch(b, p.epoch) // cannot fail: b is EpochSize long
			s.out[pc] = b
			continue
		}
		as, ss := s.base[j], s.baseSums[j]
		lo := uint64(pc) * p.perPiece
		for i, ibn := range p.ibns {
			if i < len(addrs) && !isNodePiece(pc) && ibn >= lo && ibn < lo+p.perPiece {
				as[ibn-lo] = addrs[i]
				if ss != nil {
					ss[ibn-lo] = p.sums[i]
				}
			}
		}
		b := s.payloads.Get(j, p.size)
		ondisk.EncodePiece(b, pc, as, ss)
		s.out[pc] = b
	}
	return s.out
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

// applyCommitLocked records where the inode blocks landed: the inode map
// (already durable in the committed pieces, so not marked changed), the
// inode-block cache, and which inodes are now clean (those whose record did
// not change while the commit was in flight).
func (fs *FS) applyCommitLocked(p *commitPlan, addrs []vld.Addr) {
	n0 := fs.rec.freed
	// The old copies freed here are the committed state's garbage: a
	// record may follow them (records.go).
	defer func() { fs.rec.frees += fs.rec.freed - n0 }()
	for i, ibn := range p.ibns {
		if old := fs.imap.addr(ibn); old != 0 && old != addrs[i] { // equal: rewritten in place
			fs.freeBlockLocked(old)
		}
		fs.imap.setAddrClean(ibn, addrs[i], get(p.sums, uint64(i)))
		fs.iblocks[ibn] = p.bufs[i]
		for _, v := range p.groups[i] {
			if fs.inodes[v.in.ino] == v.in {
				v.in.base, v.in.baseOK = v.d, true // durable now, whatever changed since
				if v.in.ver == v.ver {
					v.in.dirty = false
				}
			}
		}
	}
	fs.settleLocked(p.ins)
	fs.applyFullLocked(p.epoch)
}
