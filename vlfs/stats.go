package vlfs

import (
	"sync/atomic"
	"time"

	"github.com/vlfs/vlfs/internal/wallhist"
)

// opKind names the operations counted in Stats.Ops.
type opKind int

const (
	opLookup opKind = iota
	opGetAttr
	opSetAttr
	opCreate
	opMkdir
	opMknod
	opSymlink
	opReadlink
	opLink
	opUnlink
	opRmdir
	opRename
	opOpen
	opRelease
	opRead
	opWrite
	opFallocate
	opCopyRange
	opSeek
	opFsync
	opSync
	opReadDir
	opXattr
	opStatFS
	opForget
	numOps
)

var opNames = [numOps]string{
	"lookup", "getattr", "setattr", "create", "mkdir", "mknod", "symlink", "readlink",
	"link", "unlink", "rmdir", "rename", "open", "release", "read", "write", "fallocate",
	"copy_range", "seek", "fsync", "sync", "readdir", "xattr", "statfs", "forget",
}

// counters are the file system's statistics; atomics, so that counting
// needs no lock.
type counters struct {
	ops     [numOps]atomic.Int64
	bytes   [numOps]atomic.Int64
	commits atomic.Int64
	grouped atomic.Int64
	// roomCommits: commits made before a change because the next commit
	// would no longer have fit in the free blocks (space.go, lockChange)
	roomCommits atomic.Int64
	// failedCommits: commits that returned an error
	failedCommits atomic.Int64
	// recordCommits: commits that were records (records.go)
	recordCommits atomic.Int64
	// covered: fsyncs that found the whole state in a commit's snapshot
	// already taken (Fsync, coveredLocked)
	covered atomic.Int64
	// joined: fsyncs that joined the running commit before its snapshot
	// (syncTargetLocked)
	joined atomic.Int64
	// throughBlocks: data blocks written through, unbuffered (writethrough.go)
	throughBlocks atomic.Int64
	// batchWrites: batches of buffered data written without FS.mu, and
	// supersededBlocks: blocks of them changed while in flight, whose new
	// copy was dropped (writeout_batch.go)
	batchWrites, supersededBlocks atomic.Int64
	// unlockedNodeLoads: indirect blocks a Read loaded without FS.mu
	// (node_unlocked.go)
	unlockedNodeLoads atomic.Int64
	// unlockedMetaLoads: inode blocks and directories read-only operations
	// loaded without FS.mu (meta_unlocked.go)
	unlockedMetaLoads atomic.Int64
	// unlockedDataLoads: old blocks partial writes read without FS.mu
	// (write_partial.go)
	unlockedDataLoads atomic.Int64
	// unlockedCompactBlocks: blocks the compactor read or wrote without
	// FS.mu (compact_move.go, compact_target.go)
	unlockedCompactBlocks atomic.Int64
	// checksumErrors: blocks read whose bytes did not match the data
	// checksum their pointer carries (datasum.go)
	checksumErrors atomic.Int64
	// wall-clock latencies (WallStats)
	wall struct{ fsync, commit, writeOut, plan, volume wallhist.Hist }

	// For the compactor's idle detection (compactor.Foreground).
	arrived atomic.Uint64 // operations arrived
	last    atomic.Int64  // wall-clock time of the last one, UnixNano
	wake    chan struct{} // signalled (without blocking) at each one
}

func (c *counters) count(op opKind, n int) {
	c.ops[op].Add(1)
	c.bytes[op].Add(int64(n))
	c.last.Store(time.Now().UnixNano())
	c.arrived.Add(1)
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// activity is how many operations arrived and when the last one did.
func (c *counters) activity() (uint64, time.Time) {
	n := c.arrived.Load()
	var last time.Time
	if ns := c.last.Load(); ns != 0 {
		last = time.Unix(0, ns)
	}
	return n, last
}

// Stats returns the file system's counters and the volume's.
func (fs *FS) Stats() Stats {
	s := Stats{Ops: map[string]OpStats{}}
	for i := range numOps {
		if n := fs.stats.ops[i].Load(); n > 0 {
			s.Ops[opNames[i]] = OpStats{Count: n, Bytes: fs.stats.bytes[i].Load()}
		}
	}
	s.Fsyncs = fs.stats.ops[opFsync].Load() + fs.stats.ops[opSync].Load()
	s.Commits = fs.stats.commits.Load()
	s.GroupedSyncs = fs.stats.grouped.Load()
	s.RoomCommits = fs.stats.roomCommits.Load()
	s.FailedCommits = fs.stats.failedCommits.Load()
	s.RecordCommits = fs.stats.recordCommits.Load()
	s.CommitError = fs.commitError()
	s.CoveredSyncs = fs.stats.covered.Load()
	s.JoinedSyncs = fs.stats.joined.Load()
	s.WriteThroughBlocks = fs.stats.throughBlocks.Load()
	s.UnlockedBatches = fs.stats.batchWrites.Load()
	s.UnlockedNodeLoads = fs.stats.unlockedNodeLoads.Load()
	s.UnlockedMetaLoads = fs.stats.unlockedMetaLoads.Load()
	s.UnlockedDataLoads = fs.stats.unlockedDataLoads.Load()
	s.UnlockedCompactBlocks = fs.stats.unlockedCompactBlocks.Load()
	s.SupersededBlocks = fs.stats.supersededBlocks.Load()
	s.ChecksumErrors = fs.stats.checksumErrors.Load()
	fs.mu.Lock()
	s.DirtyBytes = fs.dirtyBytes
	s.Unwritten = fs.unwritten
	s.Inodes = fs.imap.nused
	s.FSVersion = fs.sb.Version
	s.Records = int64(fs.rec.seq)
	s.ReplayedRecords, s.ReplayMs = fs.replayed.Records, fs.replayed.Ms
	s.Nodes = fs.imap.placed
	fs.mu.Unlock()
	s.Vol = fs.vol.Stats()
	w := &fs.stats.wall
	s.Wall = WallStats{Fsync: w.fsync.Snapshot(), Commit: w.commit.Snapshot(),
		CommitWriteOut: w.writeOut.Snapshot(), CommitPlan: w.plan.Snapshot(), CommitVolume: w.volume.Snapshot()}
	if s.Vol.TotalBlocks > 0 {
		s.Utilization = 1 - float64(s.Vol.FreeBlocks)/float64(s.Vol.TotalBlocks)
	}
	return s
}
