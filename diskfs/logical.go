package diskfs

import (
	"fmt"
	"io"
	"sync"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/logical"
)

// maxRequestBlocks caps one logical.Disk.Write (and one zero-fill write):
// a FUSE write is at most 128 KiB, but a discard can span the whole disk.
const maxRequestBlocks = 256

// Logical exports a logical.Disk as a Disk, turning byte ranges into
// whole logical blocks. One mutex serialises every call: logical.Disk.Read
// looks a block up and then reads it outside its own lock, so a concurrent
// Write that remaps the block (freeing its old copy for reuse) could
// otherwise hand a reader someone else's data; a disk serves one request at
// a time anyway.
type Logical struct {
	mu   sync.Mutex
	d    *logical.Disk
	bs   int64
	size int64

	syncs, discards int64 // guarded by mu
}

var _ Disk = (*Logical)(nil)

// NewLogical wraps d. The caller keeps the duty of closing it (Close).
func NewLogical(d *logical.Disk) *Logical {
	bs := int64(d.BlockSize())
	return &Logical{d: d, bs: bs, size: d.Blocks() * bs}
}

// LogicalDisk is the wrapped logical disk.
func (l *Logical) LogicalDisk() *logical.Disk { return l.d }

// Size is the exported size: every logical block.
func (l *Logical) Size() int64 { return l.size }

// checkWrite refuses a range that does not fit in the disk.
func (l *Logical) checkWrite(off, n int64) error {
	if off < 0 || n < 0 || off > l.size || n > l.size-off {
		return fmt.Errorf("bytes [%d, %d) of a %d-byte disk: %w", off, off+n, l.size, ErrOutOfRange)
	}
	return nil
}

// ReadAt reads through the map; never-written and trimmed blocks read as
// zeros.
func (l *Logical) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read at %d: %w", off, vld.ErrInvalid)
	}
	if off >= l.size {
		return 0, io.EOF
	}
	var short error
	if int64(len(p)) > l.size-off {
		p, short = p[:l.size-off], io.EOF
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	tmp := make([]byte, l.bs)
	for done := 0; done < len(p); {
		pos := off + int64(done)
		blk, in := pos/l.bs, int(pos%l.bs)
		n := min(int(l.bs)-in, len(p)-done)
		if n == int(l.bs) {
			if err := l.d.Read(blk, p[done:done+n]); err != nil {
				return done, err
			}
		} else {
			if err := l.d.Read(blk, tmp); err != nil {
				return done, err
			}
			copy(p[done:done+n], tmp[in:])
		}
		done += n
	}
	return len(p), short
}

// WriteAt writes p at off as one request per maxRequestBlocks, reading the
// partial blocks at either end first.
func (l *Logical) WriteAt(p []byte, off int64) (int, error) {
	if err := l.checkWrite(off, int64(len(p))); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writeLocked(p, off); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeLocked writes p at off (inside the disk).
func (l *Logical) writeLocked(p []byte, off int64) error {
	for len(p) > 0 {
		// Cut at a block boundary so that each piece is one request.
		n := min(int64(len(p)), maxRequestBlocks*l.bs-off%l.bs)
		first, blocks, err := l.coverLocked(p[:n], off)
		if err != nil {
			return err
		}
		if err := l.d.Write(first, blocks); err != nil {
			return err
		}
		p, off = p[n:], off+n
	}
	return nil
}

// coverLocked returns the whole blocks covering [off, off+len(p)) with p
// laid over their current contents.
func (l *Logical) coverLocked(p []byte, off int64) (int64, [][]byte, error) {
	first, last := off/l.bs, (off+int64(len(p))-1)/l.bs
	n := last - first + 1
	buf := make([]byte, n*l.bs)
	if off%l.bs != 0 {
		if err := l.d.Read(first, buf[:l.bs]); err != nil {
			return 0, nil, err
		}
	}
	if end := off + int64(len(p)); end%l.bs != 0 && (last != first || off%l.bs == 0) {
		if err := l.d.Read(last, buf[(n-1)*l.bs:]); err != nil {
			return 0, nil, err
		}
	}
	copy(buf[off-first*l.bs:], p)
	blocks := make([][]byte, n)
	for i := range blocks {
		blocks[i] = buf[int64(i)*l.bs : int64(i+1)*l.bs]
	}
	return first, blocks, nil
}

// Sync commits every change so far: one logical.Disk.Sync.
func (l *Logical) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncs++
	return l.d.Sync()
}

// Close syncs and closes the disk cleanly (the tail record is written).
func (l *Logical) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.d.Close()
}

// Stats reports the volume's and the map's counters.
func (l *Logical) Stats() Stats {
	v := l.d.Volume()
	st := v.Stats()
	trimmed, overwritten := l.d.FreedCounts()
	rec := v.Recovery()
	l.mu.Lock()
	syncs, discards := l.syncs, l.discards
	l.mu.Unlock()
	return Stats{
		Backend: "vld", Placement: l.d.Placement().String(), Model: v.Model().Name, Clock: st.Clock,
		SizeBytes: l.size, BlockBytes: int(l.bs),
		Sim: simTimes(st.Sim), WriteSim: simTimes(st.WriteSim), SimNowMs: st.SimNowMs,
		Reads: st.Reads, Writes: st.Writes, BlocksRead: st.BlocksRead, BlocksWritten: st.BlocksWritten,
		Flushes: st.Flushes, Commits: st.Commits, Checkpoints: st.Checkpoints, LogEntries: st.LogEntries,
		Syncs: syncs, Discards: discards,
		FreedByTrimBlocks: trimmed, FreedByOverwriteBlocks: overwritten,
		LogicalBlocks: l.d.Blocks(), MappedBlocks: l.d.MappedCount(),
		PhysicalBlocks: st.TotalBlocks, PhysicalFreeBlocks: st.FreeBlocks,
		Recovery: &RecoveryStats{Clean: rec.Clean, ScannedBlocks: rec.ScannedBlocks, Entries: rec.Entries,
			Discarded: rec.Discarded, WallMs: rec.WallMs},
	}
}
