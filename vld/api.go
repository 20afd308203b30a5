package vld

import (
	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vld/sched"
)

// Addr is a physical block number on a volume. Blocks 0..FixedBlocks-1 hold
// the superblock, the two checkpoint slots and the tail record; they are never
// returned by WriteBlocks.
type Addr = uint64

// Clock selects how simulated service time relates to wall time.
type Clock int

const (
	// ClockVirtual: nothing sleeps; simulated time is the result.
	ClockVirtual Clock = iota
	// ClockReal: every request sleeps its simulated service time.
	ClockReal
)

// FormatOptions describe a new volume.
type FormatOptions struct {
	Model     *disk.Model // the disk being simulated; required
	BlockSize int         // physical = file-system block size; default 4096
	Kind      string      // what the volume holds: "vlfs" or "disk"; at most 8 bytes
	AppData   []byte      // opaque client data kept in the superblock; at most MaxAppData bytes
	Placement Placement   // how client writes are placed (placement.go); kept in the superblock
	Progress  func(done, total int64)
	// Homed: the client places every block at a fixed home covering the
	// whole disk (a logical disk in place, vld/logical), so Format writes
	// no superblock copies, which would take some of those homes.
	Homed bool
	// BlockEntries writes every log entry as a whole block, as volumes did
	// before sector-granular entries (superblock version 1): for comparing
	// the two (issue 33). By default an entry takes only the 512-byte
	// sectors it needs from the start of its block.
	BlockEntries bool
}

// Options tune an opened volume. The zero value is the default.
type Options struct {
	Clock Clock
	// FillThreshold is the fraction of a track the allocator fills while
	// empty tracks exist (section 4.2 of the virtual-log paper). 0 means the
	// default 0.75; a negative value disables threshold filling (pure greedy).
	FillThreshold float64
	// ReadOnly opens without recovery writes; WriteBlocks and Commit fail.
	ReadOnly bool
	// AcceptLoss (a repair's open): when the newest log entry a clean stop
	// named is damaged, recover the state before the last commit instead
	// of refusing the volume, and say so (RecoveryInfo.RootDamaged); and
	// when the pieces rebuilt differ from the tail's digest after a clean
	// stop, or from the newest commit's live-set digest after a crash (a
	// damaged older live entry), take the older versions and say so
	// (RecoveryInfo.PiecesLost).
	AcceptLoss bool
	// KeepLog makes Close stop as builds before piece copies did: the
	// tail names the log's root and no checkpoint at rest copies the
	// pieces (piece_copies.go). For tests and damage runs of the images
	// such builds left; nothing else should want it.
	KeepLog bool
	// ReserveBlocks are kept back from data writes so that metadata updates
	// (deletes included) can always complete. 0 means the default.
	ReserveBlocks int64
	// CheckpointEvery is how many virtual-log entries may accumulate
	// before a checkpoint; 0 means the default (1024). Smaller values bound
	// recovery work further at the cost of more checkpoint writes.
	CheckpointEvery int
	// LogWindow is the fraction of the disk's tracks the log window spans
	// from the next checkpoint on (0 means the default 1/16; at least 64
	// tracks either way). Virtual-log entries, and so the data written
	// with them in one request, go only inside the window; a larger one
	// lets synchronous writes and the compactor use empty tracks anywhere
	// in it, and costs every unclean mount a longer scan, which reads the
	// whole window (docs/vld.md, docs/compactor.md).
	LogWindow float64
	// Batch is the write-batching policy of the request scheduler
	// (vld/sched); the zero value is FIFO, each request served whole.
	// Volumes that do not place eagerly serve FIFO whatever it says (the
	// placement baselines are measured without batching), but for
	// BatchInPlace.
	Batch sched.Batch
	// BatchInPlace lets an in-place volume batch its writes as Batch says:
	// the batching paper's own setting, a conventional file system whose
	// delayed writes go home in batches with reads served between them.
	// Each block still goes to its home (the hints of every request in a
	// batch are kept, batchHints).
	BatchInPlace bool
	// Head is the head model: nil is the simulated head (the oracle, exact
	// geometry and position); a measured profile places writes by its skip
	// x think-time table instead (head_profile.go, docs/profiled-head.md).
	// Its block size must be the volume's.
	Head *profile.Profile
	// Logf receives diagnostics; nil discards them.
	Logf func(format string, args ...any)
}

// WriteOpts qualify one WriteBlocks call.
type WriteOpts struct {
	// Meta writes may use the reserve; data writes fail with ErrNoSpace
	// when only the reserve is left.
	Meta bool
	// Near is a placement hint per block (nil, or one per block): where the
	// block would ideally go near. The client gives the block's old copy if
	// it replaces one, else the file's previous block or its inode's block;
	// 0 means no hint. Eager placement ignores it.
	Near []Addr
	// Replaces[i] (nil, or one per block) says Near[i] is block i's own old
	// copy, which the client frees after the next commit. In-place
	// placement then writes the block over that copy and returns Near[i]:
	// a client must not free an old copy equal to the new address.
	Replaces []bool
}

// Breakdown is simulated service time split as in Figure 9 of the
// virtual-log paper. All values are simulated milliseconds.
type Breakdown struct {
	OverheadMs float64 // controller (SCSI) command overhead
	TransferMs float64 // media transfer
	LocateMs   float64 // seek + head switch + rotational wait
	OtherMs    float64 // host-side processing charged to the clock
}

// Total is the sum of all parts.
func (b Breakdown) Total() float64 { return b.OverheadMs + b.TransferMs + b.LocateMs + b.OtherMs }

// Add accumulates o into b.
func (b *Breakdown) Add(o Breakdown) {
	b.OverheadMs += o.OverheadMs
	b.TransferMs += o.TransferMs
	b.LocateMs += o.LocateMs
	b.OtherMs += o.OtherMs
}

// Stats are a volume's counters since it was opened.
type Stats struct {
	Reads, Writes             int64 // device requests
	BlocksRead, BlocksWritten int64
	// SectorsWritten is what the writes transferred, in 512-byte sectors:
	// BlocksWritten counts a log entry's block whole even when only some
	// of its sectors were written (sector-granular entries).
	SectorsWritten          int64
	Flushes                 int64 // device flushes (fdatasync)
	Commits                 int64
	Checkpoints             int64
	RangeQueuePicks         int64 // range writes served before an older one: the head reached them first (sched_range.go)
	PieceCopies             int64 // piece copies checkpoints at rest wrote (piece_copies.go)
	PieceCopiesSkipped      int64 // pieces left without copies: the disk had no room beside the reserve
	SingleCopyPieces        int64 // pieces now in one block (a log entry or a lone copy)
	LogEntries              int64 // virtual-log entries written
	LogLength               int64 // live entries in the tree since the last checkpoint
	Sim                     Breakdown
	WriteSim                Breakdown // the part of Sim spent on writes
	SimNowMs                float64   // the simulated clock
	TotalBlocks, FreeBlocks int64
	Clock                   string // "simulated" (virtual) or "real-time"
	AllocDecisions          int64  // placement decisions made
	// AllocNs is the time placement decisions took (wall time of
	// decisions that do no I/O, so CPU unless the goroutine waited for a
	// core; one decision in 8 is timed and counted 8 times), AllocBlocks
	// the blocks placed; their ratio is the allocator's cost per block,
	// which must not grow with fullness (issue 32).
	AllocNs, AllocBlocks int64
	BatchPolicy          string // Options.Batch as sched.ParseBatch reads it
	BatchBlocks          int    // write batch size in force, blocks; 0 = FIFO
	Placement            string // eager, inplace, lfs or range (placement.go)
	HeadModel            string // what eager placement writes by (head.go)
	// Wall-clock time of each device write request and each flush
	// (fdatasync of an image file), as histograms.
	WriteWall, FlushWall wallhist.Snapshot
}
