package vlfs

import (
	"sync"
	"time"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// Defaults of Options.
const (
	DefaultDirtyLimit    = 64 << 20
	DefaultFlushInterval = 5 * time.Second
)

// cacheLimits bound the clean state kept in memory. Tests shrink them to
// exercise eviction.
type cacheLimits struct {
	inodes int // clean decoded inodes
	iblks  int // raw inode blocks
	nodes  int // indirect blocks
	dirty  int // dirty inodes: beyond this, metadata is written out early
	recent int // recently written data blocks kept for the compactor
}

func defaultLimits() cacheLimits {
	return cacheLimits{inodes: 16384, iblks: 4096, nodes: 4096, dirty: 32768, recent: 1024}
}

// FS is a mounted vlfs file system. Its methods are safe for concurrent use.
type FS struct {
	commitMu sync.Mutex  // serialises commits; see the package doc
	plan     planScratch // guarded by commitMu
	mu       sync.Mutex  // guards everything below
	// readGate is read-held by a Read between resolving its blocks under
	// mu and reading them without it; releaseFreesLocked drains it before
	// freed blocks go back to the volume (file.go, Read).
	readGate sync.RWMutex
	// loads: set while a read-only operation runs under mu; a metadata
	// block it needs that is on disk only is then recorded here instead
	// of read under mu (meta_unlocked.go).
	loads    *deferredLoads
	loadsBuf deferredLoads // what loads points at: no allocation per operation
	// afterUnlockedRead, set by tests before any use, runs after an
	// unlocked load's device read, before FS.mu is taken again, so that a
	// test can change what was read meanwhile.
	afterUnlockedRead func()
	// preread holds the old blocks a partial write read without mu
	// (write_partial.go); valid only within the hold of mu that took it.
	preread []preRead

	vol      *vld.Volume
	opts     Options
	sb       ondisk.Superblock
	geo      geometry
	readOnly bool
	closed   bool

	imap   *inodeMap
	inodes map[Ino]*inode // active inodes
	dirty  map[Ino]*inode // inodes with any dirty state (pinned in inodes)
	// dirtyPeak is the most entries dirty has held since it was last
	// rebuilt (compactDirtyLocked).
	dirtyPeak int
	iblocks   map[uint64][]byte // inode-block cache: number -> on-disk content
	limits    cacheLimits
	nodes     int // indirect blocks loaded, all inodes
	// kernelTimes: Write leaves a file's mtime and ctime to the kernel
	// (SetKernelTimes).
	kernelTimes bool

	lookups  map[Ino]uint64 // FUSE lookup counts
	opens    map[Ino]uint32 // open handles
	orphans  map[Ino]bool   // link count 0 but still referenced
	linkable map[Ino]bool   // orphans made by CreateTmp, which Link may name

	dirtyBytes  int64            // buffered file data
	reserved    int64            // dirty data blocks that each need a new block
	unwritten   int64            // unwritten pointers (unwritten.go): each needs a new block when written
	unwrittenOK bool             // pointers may be ondisk.UnwrittenAddr (FSVersionUnwritten)
	dirtyMeta   int64            // dirty directory blocks
	pendingFree []vld.Addr       // freed since the last commit snapshot
	flying      map[*byte]uint64 // buffers a batch is writing without FS.mu, by first byte: when picked (writeout_batch.go)
	flights     uint64           // blocks picked for batches so far
	landed      *sync.Cond       // on mu: broadcast when a batch lands (writeout_batch.go)
	dirtySince  time.Time        // first change since the last commit (zero if clean)
	snapshot    uint64           // number of the last commit that took its snapshot (groupCommit.started)
	unsnapped   uint64           // number of the running commit while it has not taken its snapshot yet, else 0
	failed      error            // set when the volume failed; every later write returns it
	committing  bool             // a commit's inode blocks are in flight: they and the inode map are the commit's
	zero        []byte           // one block of zeros, never written to
	scratch     writeScratch

	// releases counts the commits that handed freed blocks back to the
	// volume: an address read without FS.mu or the read gate holds what
	// it held unless this changed meanwhile (the compactor's Prefetch).
	releases uint64

	rec      recLog      // what the next record commit would say (records.go)
	salv     *salvage    // what a repair mount's walk could not read (nil: not salvaging)
	replayed replayStats // what mount replayed (records_replay.go)
	cm       compaction  // the idle-time compactor's view (compact.go)
	gc       groupCommit
	stats    counters
	stop     chan struct{}
	stopped  chan struct{}
}

// geometry are the sizes derived from the block size.
type geometry struct {
	bs       int    // block size
	ipb      uint64 // inodes per inode block
	summed   bool   // pointers carry data checksums (ondisk.FSVersionSums)
	direct   uint64 // direct pointers per inode
	per      uint64 // addresses per indirect block
	perPiece uint64 // inode-block addresses per inode-map piece
	payload  int    // piece payload size
	maxBlock uint64 // first logical block number a file cannot have
}

func newGeometry(bs, payload int, summed bool) geometry {
	g := geometry{bs: bs, ipb: uint64(ondisk.InodesPerBlock(bs)), summed: summed,
		direct: uint64(ondisk.NumDirectFor(summed)), per: uint64(ondisk.PerIndirectFor(bs, summed)),
		perPiece: uint64(ondisk.PerPieceFor(payload, summed)), payload: payload}
	g.maxBlock = g.direct + g.per + g.per*g.per + g.per*g.per*g.per
	return g
}

// maxFileSize is the largest size a file may have.
func (g geometry) maxFileSize() uint64 { return g.maxBlock * uint64(g.bs) }

// lock takes FS.mu; unlock shrinks the caches (a safe point) and releases it.
func (fs *FS) lock() { fs.mu.Lock() }

func (fs *FS) unlock() {
	fs.limitDirtyInodesLocked()
	fs.shrinkCachesLocked()
	fs.mu.Unlock()
}

// limitDirtyInodesLocked writes everything out (without committing) when
// too many inodes are dirty, so that they become clean and evictable and
// memory stays bounded however many files change between commits. An
// error leaves the state dirty; the next commit reports it.
func (fs *FS) limitDirtyInodesLocked() {
	if len(fs.dirty) <= fs.limits.dirty || fs.readOnly || fs.closed || fs.failed != nil || fs.committing {
		return
	}
	if err := fs.writeOutLocked(); err != nil {
		fs.logf("vlfs: early write-out of %d dirty inodes: %v", len(fs.dirty), err)
	}
}

func (fs *FS) logf(format string, args ...any) {
	if fs.opts.Logf != nil {
		fs.opts.Logf(format, args...)
	}
}

// now is the time stamped on inodes.
func now() ondisk.Timespec { return toTimespec(time.Now()) }

func toTimespec(t time.Time) ondisk.Timespec {
	return ondisk.Timespec{Sec: t.Unix(), Nsec: uint32(t.Nanosecond())}
}

func fromTimespec(t ondisk.Timespec) time.Time { return time.Unix(t.Sec, int64(t.Nsec)) }
