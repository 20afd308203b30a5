package vlfs

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Record commits (file-system version 3, ondisk/record.go). A commit whose
// changes are all "these blocks of these regular files landed here, and
// their sizes and times are now these" writes the data and one log record
// saying so, and leaves the indirect blocks, inode blocks and inode-map
// pieces that point at the data dirty in memory: a full commit writes them
// later (when records run out, at idle time, at unmount, or when any other
// change comes), and recovery replays the records made since the last
// full commit (records_replay.go). An overwrite + fsync then writes two
// blocks where version 2 wrote three to five.
//
// What a record may say is decided by exclusion, not by listing the
// operations that qualify: every pointer set since the last commit must be
// a logged landing of a regular file's block, every freed block must have
// been freed by such a landing, no inode-map piece may be dirty, and every
// dirty inode must differ from what recovery would rebuild for it (base)
// only in size, block count, times and direct pointers. Anything else
// (create, unlink, rename, truncate and punch, which free blocks,
// directories, xattrs, the compactor's moves, early write-out) makes the
// next commit a full one.

// defaultMaxRecords bounds the records of one epoch before a full commit:
// one per 32 blocks of the volume, at least 16 and at most 1024. The full
// commit writes every holder the epoch's records deferred (for random
// updates of a large file, about one leaf per record until the leaves are
// all dirty), so fewer, larger epochs write less per update: on bench
// updates' 128 MiB st19101 at 80 %, 128 records per epoch wrote 2.42
// blocks per update and 1024 wrote 2.13. Each record number is a piece
// the volume keeps (one log-entry block, and 24 bytes in every checkpoint
// directory), hence the bound by volume size: 3 % of a small volume at
// most (ext4 gives a 128 MiB file system a 4 MiB journal, the same 3 %),
// 4 MiB at most.
func defaultMaxRecords(numBlocks uint64) int { return int(min(max(numBlocks/32, 16), 1024)) }

// recLog is what the next record commit would say, and the epoch's count.
// Guarded by FS.mu, except epoch and seq, which only commits change
// (under commitMu and FS.mu).
type recLog struct {
	on    bool
	limit uint32
	epoch uint64 // the durable epoch
	seq   uint32 // records durable in this epoch

	land []landing // logged landings since the last commit, in order
	// sets counts setPtrLocked calls since the last commit, logged those
	// of them that were logged landings; freed counts freeBlockLocked
	// calls, frees those of them that logged landings made. The next
	// commit is a record commit only if sets == logged and frees == freed.
	// Frees are counted, not read off pendingFree: dropping an unwritten
	// pointer (a punch or truncate over a reservation) frees no block yet
	// changes what a record cannot say.
	sets, logged uint64
	frees, freed int
	full         bool // the next commit must be full (a record commit failed, unmount)
	// holders are the blocks the next full commit must write for what
	// the records stand for (dirty indirect blocks and inodes, counted at
	// the last record plan): space checks count them.
	holders int64

	deferredSince time.Time // first record commit since the last full commit (zero: none)

	// plan is the record plan's memory, kept from one record commit to
	// the next (guarded by commitMu, as FS.plan): a small fsync allocates
	// no record-sized buffers.
	plan recordPlan
}

// landing is one logged landing: block lbn of ino is now at addr.
type landing struct {
	ino       Ino
	lbn, addr uint64
	sum       uint32 // the block's data checksum (summed geometry)
}

// newRecLog: records are written on version 3 with eager placement only.
// Range placement keeps a file's blocks in order by their hints, which
// deferred holders do not give (TestRangePlacementFilesStaySequential:
// 12 extents instead of 6), and in-place and LFS placement are the
// baselines records are measured against.
func newRecLog(sb ondisk.Superblock, o Options, vol *vld.Volume) recLog {
	r := recLog{on: sb.Version >= ondisk.FSVersionRecords && o.MaxRecords >= 0 && vol.Placement() == vld.PlaceEager}
	r.limit = uint32(min(defaultMaxRecords(vol.NumBlocks()), ondisk.MaxRecordSlots))
	if o.MaxRecords > 0 {
		r.limit = uint32(min(o.MaxRecords, ondisk.MaxRecordSlots))
	}
	return r
}

// reset starts the log of the next commit (a plan took this one).
func (r *recLog) reset() {
	r.land = r.land[:0]
	r.sets, r.logged, r.frees, r.freed = 0, 0, 0, 0
}

// logLandingLocked records that block lbn of in landed at a (after
// setPtrLocked; the caller counts the frees the landing made).
func (fs *FS) logLandingLocked(in *inode, lbn uint64, a vld.Addr, sum uint32) {
	r := &fs.rec
	if !r.on || !in.isReg() {
		return
	}
	r.logged++
	r.land = append(r.land, landing{in.ino, lbn, a, sum})
}

// recordableLocked reports whether the changes since the last commit can
// go as a record, before the data is written out.
func (fs *FS) recordableLocked() bool {
	r := &fs.rec
	if !r.on || r.full || r.seq >= r.limit || !fs.onlyLandingsLocked() {
		return false
	}
	var holders int64
	for _, in := range fs.dirty {
		if !in.recordable() {
			return false
		}
		holders += 1 + int64(len(in.dirtyNodes))
	}
	// On a nearly full disk the full commit that must follow has to fit:
	// records stop while it still does.
	if fs.vol.MetaFreeBlocks() < 2*(holders+commitSlack) {
		return false
	}
	r.holders = holders
	return true
}

// onlyLandingsLocked reports whether every pointer set and every free
// since the last commit came from a logged landing, and no map piece
// changed: what a record can stand for.
func (fs *FS) onlyLandingsLocked() bool {
	r := &fs.rec
	return r.sets == r.logged && r.frees == r.freed && len(fs.imap.dirty) == 0
}

// recordable reports whether in's changes since what recovery rebuilds
// (base) are ones a record can carry.
func (in *inode) recordable() bool {
	if !in.baseOK || !in.isReg() || in.base.Mode == 0 || in.xattrDirty || (in.dir != nil && in.dir.ndirty > 0) {
		return false
	}
	x := in.base
	x.Size, x.Blocks, x.Atime, x.Mtime, x.Ctime, x.Direct = in.d.Size, in.d.Blocks, in.d.Atime, in.d.Mtime, in.d.Ctime, in.d.Direct
	x.DirectSum = in.d.DirectSum
	return x == in.d
}

// recordPlan is a record commit's snapshot: the record and, per file, the
// inode as the record leaves it (the new base once it is durable).
type recordPlan struct {
	rec   ondisk.Record
	ins   []*inode
	after []ondisk.Inode
	ptrs  []ondisk.RecordPtr // what rec's files' Ptrs slice
	buf   []byte             // the payload
	out   map[uint32][]byte
}

// planRecordLocked writes out the buffered data (gathered with the record
// by the volume) and builds the record. It returns nil, nil when the
// record turns out not to fit or the write-out changed more than a record
// says: the caller then plans a full commit, which writes the rest.
func (fs *FS) planRecordLocked() (*recordPlan, error) {
	ins := fs.sortedDirtyLocked()
	fs.vol.GatherEntries(1) // the record: one log entry after the data
	if err := fs.writeDataLocked(ins, true); err != nil {
		return nil, err
	}
	if !fs.onlyLandingsLocked() { // the write-out changed more than a record says
		return nil, nil
	}
	r := &fs.rec
	rp := &r.plan
	rp.rec = ondisk.Record{Epoch: r.epoch, Seq: r.seq + 1, Files: rp.rec.Files[:0], Summed: fs.geo.summed}
	rp.ins, rp.after, rp.ptrs = rp.ins[:0], rp.after[:0], rp.ptrs[:0]
	land := lastPerBlock(r.land)
	for _, in := range ins { // in inode order, as land
		j := 0
		for j < len(land) && land[j].ino == in.ino {
			j++
		}
		if j == 0 && in.d == in.base {
			continue // dirty from an earlier record only
		}
		from := len(rp.ptrs)
		for _, l := range land[:j] {
			rp.ptrs = append(rp.ptrs, ondisk.RecordPtr{Lbn: l.lbn, Addr: l.addr, Sum: l.sum})
		}
		land = land[j:]
		rp.rec.Files = append(rp.rec.Files, ondisk.RecordFile{Ino: uint64(in.ino), Size: in.d.Size, Blocks: in.d.Blocks,
			Atime: in.d.Atime, Mtime: in.d.Mtime, Ctime: in.d.Ctime})
		rp.ins = append(rp.ins, in)
		rp.after = append(rp.after, in.d)
		rp.rec.Files[len(rp.rec.Files)-1].Ptrs = rp.ptrs[from:len(rp.ptrs):len(rp.ptrs)]
	}
	if len(land) > 0 || rp.rec.Size() > fs.geo.payload {
		// A landing of a file no longer dirty cannot be (the landing
		// dirtied it); too big for one record: a full commit.
		return nil, nil
	}
	return rp, nil
}

// lastPerBlock sorts land by file and block, keeping the last landing of
// each block (it reuses land's array).
func lastPerBlock(land []landing) []landing {
	slices.SortStableFunc(land, func(a, b landing) int {
		return cmp.Or(cmp.Compare(a.ino, b.ino), cmp.Compare(a.lbn, b.lbn))
	})
	out := land[:0]
	for i, l := range land {
		if i+1 < len(land) && land[i+1].ino == l.ino && land[i+1].lbn == l.lbn {
			continue // a later landing of the same block follows
		}
		out = append(out, l)
	}
	return out
}

// payload is the record's piece payload (the volume copies it).
func (rp *recordPlan) payload(size int) (map[uint32][]byte, error) {
	if len(rp.buf) < size {
		rp.buf = make([]byte, size)
	}
	n, err := ondisk.EncodeRecord(rp.buf[:size], &rp.rec)
	if err != nil {
		return nil, fmt.Errorf("record %d: %w: %w", rp.rec.Seq, err, ErrCorrupt)
	}
	if rp.out == nil {
		rp.out = map[uint32][]byte{}
	}
	clear(rp.out)
	rp.out[ondisk.RecordPieceBase+rp.rec.Seq] = rp.buf[:n]
	return rp.out, nil
}

// applyRecordLocked records that rp is durable: its files' bases move to
// what the record says, and the epoch holds one more record.
func (fs *FS) applyRecordLocked(rp *recordPlan) {
	if len(rp.rec.Files) == 0 {
		return // nothing was written (landRecord)
	}
	for i, in := range rp.ins {
		if fs.inodes[in.ino] == in {
			in.base = rp.after[i]
		}
	}
	fs.rec.seq = rp.rec.Seq
	if fs.rec.deferredSince.IsZero() {
		fs.rec.deferredSince = wallNow()
	}
	fs.stats.recordCommits.Add(1)
}

// epochPieceLocked adds the epoch piece to a full commit's pieces when
// records of the current epoch exist: the commit voids them.
func (fs *FS) epochPieceLocked(pieces []uint32) ([]uint32, uint64) {
	if fs.rec.seq == 0 { // on or off: records replayed at mount count too
		return pieces, 0
	}
	return append(pieces, ondisk.RecordPieceBase), fs.rec.epoch + 1
}

// applyFullLocked records that a full commit (which started epoch, if not
// 0) is durable.
func (fs *FS) applyFullLocked(epoch uint64) {
	if epoch != 0 {
		fs.rec.epoch, fs.rec.seq = epoch, 0
	}
	fs.rec.full = false
	fs.rec.holders = 0
	fs.rec.deferredSince = time.Time{}
}

// fullDueLocked reports whether the state the records stand for has waited
// long enough in memory: the flusher then makes a full commit.
func (fs *FS) fullDueLocked(wait time.Duration) bool {
	return !fs.rec.deferredSince.IsZero() && time.Since(fs.rec.deferredSince) >= wait
}
