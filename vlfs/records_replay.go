package vlfs

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// replayStats say what mount replayed: records and wall time.
type replayStats struct {
	Records int
	Ms      float64
}

// replay is what the records of the durable epoch say, folded: the last
// address of every block they name and the last attributes of every file.
type replay struct {
	n     int                                    // records
	ptrs  map[uint64]map[uint64]ondisk.RecordPtr // inode -> logical block -> where it is
	files map[uint64]ondisk.RecordFile           // inode -> its last record (Ptrs unused)
}

// overridden reports whether the records name block lbn of ino: the
// durable tree's pointer there is stale and its block free.
func (r *replay) overridden(ino, lbn uint64) bool {
	_, ok := r.ptrs[ino][lbn]
	return ok
}

// takeRecords removes the epoch and record pieces from pieces and folds
// the records of the durable epoch, which must be numbered 1..n without a
// gap (commits are atomic and in order, so a gap is damage).
func (fs *FS) takeRecords(pieces map[uint32][]byte) (*replay, error) {
	var epoch uint64
	var recs []ondisk.Record
	for p, b := range pieces {
		if !ondisk.IsRecordPiece(p) {
			continue
		}
		delete(pieces, p)
		if fs.sb.Version < ondisk.FSVersionRecords {
			return nil, fmt.Errorf("piece %d is a log record, which file-system version %d does not write: %w", p, fs.sb.Version, ErrNeedsRepair)
		}
		if p == ondisk.RecordPieceBase {
			e, err := ondisk.DecodeEpoch(b)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", err, ErrNeedsRepair)
			}
			epoch = e
			continue
		}
		r, err := ondisk.DecodeRecord(b, p-ondisk.RecordPieceBase)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", err, ErrNeedsRepair)
		}
		recs = append(recs, r)
	}
	recs = slices.DeleteFunc(recs, func(r ondisk.Record) bool { return r.Epoch < epoch })
	slices.SortFunc(recs, func(a, b ondisk.Record) int { return int(a.Seq) - int(b.Seq) })
	rp := &replay{n: len(recs), ptrs: map[uint64]map[uint64]ondisk.RecordPtr{}, files: map[uint64]ondisk.RecordFile{}}
	nb := fs.vol.NumBlocks()
	for i, r := range recs {
		if r.Epoch != epoch || r.Seq != uint32(i+1) {
			return nil, fmt.Errorf("record %d of epoch %d where record %d of epoch %d belongs: %w", r.Seq, r.Epoch, i+1, epoch, ErrNeedsRepair)
		}
		if r.Summed != fs.geo.summed {
			return nil, fmt.Errorf("record %d: layout summed=%v in a file system with summed=%v: %w", r.Seq, r.Summed, fs.geo.summed, ErrNeedsRepair)
		}
		for _, f := range r.Files {
			m := rp.ptrs[f.Ino]
			if m == nil {
				m = map[uint64]ondisk.RecordPtr{}
				rp.ptrs[f.Ino] = m
			}
			for _, p := range f.Ptrs {
				if p.Lbn >= fs.geo.maxBlock || p.Addr == 0 || p.Addr >= nb {
					return nil, fmt.Errorf("record %d: inode %d block %d at %d (volume of %d blocks): %w", r.Seq, f.Ino, p.Lbn, p.Addr, nb, ErrNeedsRepair)
				}
				m[p.Lbn] = p
			}
			f.Ptrs = nil
			rp.files[f.Ino] = f
		}
	}
	fs.rec.epoch, fs.rec.seq = epoch, uint32(len(recs))
	return rp, nil
}

// markRecordedLocked declares the blocks the records name live (the walk
// skipped what they replaced).
func (fs *FS) markRecordedLocked(rp *replay) error {
	for ino, m := range rp.ptrs {
		for lbn, p := range m {
			a := p.Addr
			if err := fs.vol.MarkLive(a); err != nil {
				return fmt.Errorf("inode %d block %d, as a record says: %w", ino, lbn, err)
			}
			fs.noteOwnedLocked(ino, a)
		}
	}
	return nil
}

// replayLocked applies the records to the inodes in memory. What they
// change stays dirty, for the next full commit to write; it is durable
// already, so nothing counts as changed since the last commit.
func (fs *FS) replayLocked(rp *replay) error {
	if rp.n == 0 {
		return nil
	}
	for _, ino := range slices.Sorted(maps.Keys(rp.files)) {
		in, err := fs.getLocked(Ino(ino))
		if err != nil {
			return fmt.Errorf("replaying the records of inode %d: %w: %w", ino, err, ErrNeedsRepair)
		}
		if !in.isReg() {
			return fmt.Errorf("the records name inode %d, which is not a regular file: %w", ino, ErrNeedsRepair)
		}
		m := rp.ptrs[ino]
		for _, lbn := range slices.Sorted(maps.Keys(m)) {
			if err := fs.prepareLocked(in, lbn); err != nil {
				return fmt.Errorf("replaying inode %d block %d: %w", ino, lbn, err)
			}
			if _, err := fs.pointLocked(in, lbn, m[lbn].Addr, m[lbn].Sum); err != nil {
				return fmt.Errorf("replaying inode %d block %d: %w", ino, lbn, err)
			}
		}
		f := rp.files[ino]
		in.d.Size, in.d.Blocks, in.d.Atime, in.d.Mtime, in.d.Ctime = f.Size, f.Blocks, f.Atime, f.Mtime, f.Ctime
		fs.touchLocked(in)
		in.base, in.baseOK = in.d, true
	}
	fs.dirtySince = time.Time{}
	fs.rec.deferredSince = wallNow()
	return nil
}
