package vlfs

import (
	"errors"
	"time"

	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
)

// Ino is an inode number. RootIno is the root directory; 0 is never used.
type Ino uint64

// RootIno is the inode number of the root directory.
const RootIno Ino = 1

// Attr are the attributes of one inode, as FUSE's getattr wants them.
type Attr struct {
	Ino                 Ino
	Mode                uint32 // S_IFMT type bits | permission bits, as syscall.S_IF*
	Nlink               uint32
	Uid, Gid            uint32
	Rdev                uint32
	Size                uint64
	Blocks              uint64 // 512-byte units actually allocated
	Atime, Mtime, Ctime time.Time
	Gen                 uint64
}

// SetAttrMask selects the fields of a SetAttr that apply.
type SetAttrMask uint32

// SetAttr mask bits.
const (
	SetMode SetAttrMask = 1 << iota
	SetUid
	SetGid
	SetSize
	SetAtime
	SetMtime
	SetAtimeNow
	SetMtimeNow
	SetCtime
)

// SetAttr is a setattr request: only the fields named by Mask apply.
type SetAttr struct {
	Mask                SetAttrMask
	Mode, Uid, Gid      uint32
	Size                uint64
	Atime, Mtime, Ctime time.Time
}

// DirEntry is one directory entry as ReadDir returns it.
type DirEntry struct {
	Name string
	Ino  Ino
	Mode uint32 // S_IFMT type bits only
}

// StatFS are the figures statfs reports, in blocks of Bsize bytes.
type StatFS struct {
	Blocks, Bfree, Bavail, Files, Ffree uint64
	Bsize, Namelen                      uint32
}

// Options tune a mounted file system. The zero value is the default. How
// the volume under it runs (its clock, head model, write batching, log
// window) is the volume's business: the caller opens it (vld.Open, or
// MountWith's vld.Options) and hands it over (Open).
type Options struct {
	DirtyLimitBytes int64         // buffered dirty data before writers flush; default 64 MiB
	FlushInterval   time.Duration // age after which the background flusher commits; default 5s
	// WriteThroughBytes: the whole blocks of a write this large or larger
	// go to the volume at once, unbuffered (writethrough.go); 0 buffers
	// every write. Mounts use DefaultWriteThrough: the kernel's writeback
	// cache buffers them already.
	WriteThroughBytes int64
	ReadOnly          bool
	Logf              func(string, ...any)
	// TinyCaches is for crash tests: keep one clean inode, inode block and
	// indirect block and one dirty inode in memory, so that metadata
	// (inode and indirect blocks) is written out and evicted between
	// commits instead of only by them.
	TinyCaches bool
	// MaxRecords bounds the log records of file-system version 3 between
	// full commits (records.go): 0 is one per 32 blocks of the volume (16
	// to 1024), a negative value makes every commit a full one, as in
	// version 2 (for comparisons).
	MaxRecords int

	// salvage is set by Repair only: the mount walk drops inode blocks
	// and cuts block trees it cannot read instead of failing
	// (repair_salvage.go).
	salvage bool
}

// MkfsOptions describe a new file system.
type MkfsOptions struct {
	Model     *disk.Model
	BlockSize int // default 4096
	// Placement is how the volume places blocks (eager, inplace, lfs:
	// docs/placement.md); fixed for the life of the image.
	Placement vld.Placement
	Progress  func(done, total int64)
	// Head, when set, places mkfs's own writes (the root directory) with
	// the profiled head model instead of the simulated one.
	Head *profile.Profile
	// Version is the file-system version to make (ondisk.FSVersionAddr ..
	// FSVersionSums; 0: ondisk.FSVersion). The address version is kept
	// for images made before the node map and for comparisons with it.
	Version uint32
}

// Flags of Rename, as linux renameat2(2).
const (
	RenameNoReplace uint32 = 1 << 0
	RenameExchange  uint32 = 1 << 1
)

// Flags of Setxattr, as linux setxattr(2).
const (
	XattrCreate  uint32 = 1
	XattrReplace uint32 = 2
)

// Modes of Fallocate, as linux's FALLOC_FL_*. Fallocate takes 0 or
// FallocKeepSize (allocate), FallocPunchHole|FallocKeepSize (free the
// range's blocks: it reads as zeros and keeps its size), and
// FallocZeroRange with or without FallocKeepSize (zeros, allocated).
const (
	// FallocKeepSize: blocks past the end of a file are not part of the
	// format, so with it Fallocate allocates only inside the file and
	// merely checks that the rest is free now.
	FallocKeepSize  uint32 = 0x01
	FallocPunchHole uint32 = 0x02
	FallocZeroRange uint32 = 0x10
)

// MaxNameLen is the longest file name, in bytes.
const MaxNameLen = 255

// Sentinel errors. Every error returned by this package that has one of these
// causes wraps it; test with errors.Is. The FUSE adapter maps them to errnos.
var (
	ErrNotExist     = errors.New("vlfs: no such file or directory")
	ErrExist        = errors.New("vlfs: file exists")
	ErrNotDir       = errors.New("vlfs: not a directory")
	ErrIsDir        = errors.New("vlfs: is a directory")
	ErrNotEmpty     = errors.New("vlfs: directory not empty")
	ErrNameTooLong  = errors.New("vlfs: file name too long")
	ErrNoSpace      = errors.New("vlfs: no space left on device")
	ErrInvalid      = errors.New("vlfs: invalid argument")
	ErrNoXattr      = errors.New("vlfs: no such attribute")
	ErrXattrRange   = errors.New("vlfs: attribute name or value too large")
	ErrFileTooBig   = errors.New("vlfs: file too large")
	ErrNotSupported = errors.New("vlfs: operation not supported")
	ErrReadOnly     = errors.New("vlfs: read-only file system")
	ErrCorrupt      = errors.New("vlfs: corrupt file system")
	ErrNeedsRepair  = errors.New("vlfs: file system needs repair")
	// ErrNotVLFS: the image holds no vld volume (no superblock magic: a
	// random file, an empty one) or a volume of another kind (a logical
	// disk). Nothing to repair: fsck exits 8 for it, as e2fsck does for
	// a bad magic number.
	ErrNotVLFS  = errors.New("vlfs: not a vlfs image")
	ErrPerm     = errors.New("vlfs: operation not permitted")
	ErrNoOffset = errors.New("vlfs: no such offset") // lseek past the end, or no data after the offset
)

// OpStats count one kind of operation.
type OpStats struct {
	Count int64
	Bytes int64
}

// Stats are the file system's counters since mount.
type Stats struct {
	Ops          map[string]OpStats // per operation kind: "read", "write", "create", "fsync", ...
	Fsyncs       int64              // Fsync + Sync calls
	Commits      int64              // volume commits issued by the file system
	GroupedSyncs int64              // fsyncs satisfied by another caller's commit
	// CoveredSyncs: fsyncs that found nothing changed since a commit's
	// snapshot and waited for that commit only (or for none, if it was
	// done), part of GroupedSyncs
	CoveredSyncs int64
	// JoinedSyncs: fsyncs that joined the running commit before it took
	// its snapshot, part of GroupedSyncs
	JoinedSyncs int64
	// RoomCommits: commits made before a change because the next commit
	// would otherwise have outgrown the free blocks (a bulk delete on a
	// full disk, split into commits that fit)
	RoomCommits int64
	// FailedCommits: commits that failed; CommitError is the error of the
	// last commit if it failed ("" if it succeeded): what it held is not
	// durable, and fsync, syncfs and unmount report it
	FailedCommits int64
	CommitError   string
	// RecordCommits: commits that wrote their data and one log record
	// instead of the blocks that point at the data (version 3,
	// records.go); part of Commits. Records: those durable since the last
	// full commit, which a crash now would replay.
	RecordCommits, Records int64
	// ReplayedRecords: records mount replayed after an unclean stop, in
	// ReplayMs of wall time (the walk of the metadata not included).
	ReplayedRecords int
	ReplayMs        float64
	DirtyBytes      int64 // buffered data not yet written to the volume
	// WriteThroughBlocks: data blocks of large writes sent to the volume
	// at once instead of buffered (Options.WriteThroughBytes)
	WriteThroughBlocks int64
	// UnlockedBatches: batches of buffered data written out with FS.mu
	// released; SupersededBlocks: blocks of them changed while in flight,
	// whose written copy was dropped (writeout_batch.go)
	UnlockedBatches, SupersededBlocks int64
	// UnlockedNodeLoads: indirect blocks Read loaded with FS.mu
	// released during the device read (node_unlocked.go).
	UnlockedNodeLoads int64
	// UnlockedMetaLoads: inode blocks and directories that lookups,
	// getattrs and readdirs loaded with FS.mu released (meta_unlocked.go).
	UnlockedMetaLoads int64
	// UnlockedDataLoads: blocks partial writes read (their bytes the
	// write does not cover) with FS.mu released (write_partial.go).
	UnlockedDataLoads int64
	// UnlockedCompactBlocks: blocks the compactor read (a track read
	// ahead, a block to move) or wrote (its copy) with FS.mu released.
	UnlockedCompactBlocks int64
	// ChecksumErrors: data blocks read whose bytes did not match the
	// checksum their pointer carries (version 4): each was answered EIO
	// and logged with its inode and offset.
	ChecksumErrors int64
	// Unwritten: blocks fallocate reserved that the file system keeps as
	// unwritten pointers (version 5, unwritten.go): space, no block.
	Unwritten int64
	Inodes    int64 // allocated inodes
	// FSVersion is the image's file-system version (ondisk.FSVersionAddr
	// .. FSVersionUnwritten); Nodes the indirect blocks the node map names
	// (0 under version 1).
	FSVersion   uint32
	Nodes       int64
	Utilization float64   // fraction of client blocks in use
	Vol         vld.Stats // the volume's counters (simulated time breakdown, flushes, log length, checkpoints)
	Wall        WallStats // wall-clock latencies of fsyncs and commits
}

// WallStats are wall-clock latencies, as histograms (internal/wallhist).
// With Vol.FlushWall they say where an fsync's time goes. Commits are all
// of them, the background flusher's, the compactor's and unmount's too; a
// commit that fails before its volume part is not timed (nor counted).
type WallStats struct {
	Fsync wallhist.Snapshot // Fsync and Sync calls, a group commit's wait included
	// Commit runs from the commit's turn (commitMu taken) to recording
	// where its blocks went: its write-out, its plan, its volume part,
	// then FS.mu again.
	Commit wallhist.Snapshot
	// CommitWriteOut: writing buffered data and reservations in batches
	// without FS.mu, waiting for FS.mu and for batches already in flight.
	CommitWriteOut wallhist.Snapshot
	// CommitPlan: with FS.mu held, handing the rest of the data and the
	// directory, xattr and indirect blocks to the volume, which holds them
	// back to go out with the commit, and encoding inode blocks.
	CommitPlan wallhist.Snapshot
	// CommitVolume: writing the held-back blocks, the inode blocks and the
	// log entries, the device flush, and a checkpoint when one is due (with
	// the real-time clock, the simulated disk's sleeps too).
	CommitVolume wallhist.Snapshot
}
