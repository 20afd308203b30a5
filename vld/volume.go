package vld

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"sync"

	"github.com/vlfs/vlfs/internal/scratch"
	"github.com/vlfs/vlfs/internal/wallhist"
	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vld/sched"
)

const (
	phaseMount = iota
	phaseRun
	phaseClosed
)

// Volume is an open VLD volume. It is safe for concurrent use.
type Volume struct {
	commitMu sync.Mutex // serialises Commit, checkpoints and Close
	mu       sync.Mutex // guards everything below

	dev device.Device
	sb  *ondisk.Superblock
	// superRaw is the superblock's block as read (block 0's or, when that
	// was damaged, a copy's: superFrom), for finding its copies
	// (superblock_copies.go)
	superRaw    []byte
	superFrom   Addr
	superCopies []Addr // the copies inside the volume, marked used
	model       *disk.Model
	layout      *disk.Layout
	bs          int
	opts        Options

	alloc *alloc.Allocator
	head  headModel
	m     *mech
	sched *sched.Scheduler[*request]
	log   *vlog
	place placeState // placement policy (placement.go, vld/place)
	phase int
	// failed is set when a device error leaves memory ahead of the disk;
	// every later call returns it.
	failed error

	written  map[Addr]uint32 // blocks written since the last commit snapshot, with their CRC
	pending  map[Addr]bool   // freed since the last commit snapshot
	reserve  int64
	stats    Stats
	wall     struct{ write, flush wallhist.Hist } // atomics: recorded and read without mu
	recovery RecoveryInfo
	buf      []byte // one block, for metadata I/O under mu
	// padBuf and padVec complete a short last block for the device
	// (wholeLastLocked), under mu.
	padBuf    []byte
	padVec    [][]byte
	gather    gatherState  // writes held back for the next commit (gather.go)
	openTail  []byte       // the tail block as Open found it (Abandon)
	cleanTail *ondisk.Tail // the tail record Open found valid (nil after a crash)
	lost      string       // redundancy Open found lost (Redundancy)
	// lostCopies are damaged piece copies recovery read around
	// (piece_copies.go), until recover drops them.
	lostCopies []lostCopy
	maxTrack   int // maxTrackBlocks, once known
	commit     commitScratch
}

// commitScratch is what a commit builds and writes before it returns,
// kept from one commit to the next so that a small synchronous commit
// allocates no fresh blocks: the device and the gather copy what they
// are given, so nothing here outlives the commit that filled it. Guarded
// by commitMu (and filled under mu).
type commitScratch struct {
	covers  []ondisk.Cover
	order   []uint32
	entries scratch.Slices[byte] // encoded log entries, one block each
	encoded [][]byte             // this commit's entries, in order
	blocks  [][]byte             // data and entries, in write order (cleared after use)
}

// entryBlocks returns n block buffers for encoded log entries. Encode
// writes every byte of a block, so old contents need no clearing.
func (c *commitScratch) entryBlocks(n, bs int) [][]byte {
	c.encoded = c.encoded[:0]
	for i := range n {
		c.encoded = append(c.encoded, c.entries.Get(i, bs))
	}
	return c.encoded
}

// RecoveryInfo says how the last Open found the log.
type RecoveryInfo struct {
	Clean            bool  // the tail record was valid
	ScannedBlocks    int64 // blocks read by the tail scan (0 if clean)
	Entries          int   // log entries reached from the root
	Pruned           int   // of those, obsolete ones the running volume had recycled (vlog.prune)
	DirCopiesUsed    int   // checkpoint directory blocks read from their copy (the block did not decode)
	DirCopiesDamaged int   // copies that did not decode (their block did)
	// PieceCopiesDamaged counts piece copies (piece_copies.go) that did
	// not read beside a good copy of the same version.
	PieceCopiesDamaged int
	// CheckpointSlots is how many checkpoint slots held the checkpoint
	// used (2 from checkpoint version 3 on; 1 means the other one was
	// damaged, or alternated before version 3).
	CheckpointSlots int
	// CheckpointMended: the checkpoint was read from one slot or from a
	// directory copy, or a copy was damaged; a read-write Start wrote a
	// whole checkpoint again.
	CheckpointMended bool
	Discarded        bool // the newest commit group was incomplete and ignored
	// RootDamaged: the newest entry a clean stop named did not read, and
	// (Options.AcceptLoss) the state before its commit was recovered.
	RootDamaged bool
	// PiecesLost: the pieces the log walk rebuilt differ from the tail's
	// digest of them after a clean stop, or from the live-set digest of
	// the newest commit after a crash (a live entry did not read), and
	// (Options.AcceptLoss) the older versions were taken.
	PiecesLost    bool
	CheckpointSeq uint64
	WallMs        float64
	// SuperblockCopy is the block whose copy of the superblock Open used
	// because block 0 was damaged (0: block 0 was good); SuperblockCopies
	// the copies found intact (superblock_copies.go; 0 on images made
	// before copies existed).
	SuperblockCopy   Addr
	SuperblockCopies int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func blockCRC(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// Redundancy says what redundancy Open found lost (a damaged superblock,
// checkpoint slot, directory block or copy; "" if none), and whether it
// is mended: a read-write open writes block 0 back at Open and the whole
// checkpoint again at Start.
func (v *Volume) Redundancy() (lost string, mended bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lost, v.lost != "" && !v.opts.ReadOnly && v.phase != phaseMount
}

// lostRedundancy describes, at the end of Open, what Redundancy reports.
func (v *Volume) lostRedundancy() string {
	r := v.recovery
	var why []string
	if r.SuperblockCopy != 0 {
		why = append(why, fmt.Sprintf("block 0 (the superblock) damaged, read from its copy at block %d", r.SuperblockCopy))
	}
	if r.CheckpointSlots == 1 && v.log.ckpt.Version >= ondisk.CheckpointVersion {
		why = append(why, "one checkpoint slot damaged, read from the other")
	}
	if r.DirCopiesUsed > 0 {
		why = append(why, fmt.Sprintf("%d checkpoint directory block(s) damaged, read from their copies", r.DirCopiesUsed))
	}
	if r.RootDamaged {
		why = append(why, "the newest log entry was damaged: the state before the last commit was recovered, and what that commit wrote is lost")
	}
	if r.PiecesLost {
		why = append(why, "a live log entry was damaged: older versions of the pieces it held were recovered, and what it held is lost")
	}
	if r.DirCopiesDamaged > 0 {
		why = append(why, fmt.Sprintf("%d checkpoint directory copies damaged", r.DirCopiesDamaged))
	}
	if r.PieceCopiesDamaged > 0 {
		why = append(why, fmt.Sprintf("%d piece copies damaged, read from the other copy", r.PieceCopiesDamaged))
	}
	return strings.Join(why, "; ")
}

// CheckpointBlocks are the blocks of the durable checkpoint's directory
// and their copies (for inspection and damage tests).
func (v *Volume) CheckpointBlocks() (dir, copies []Addr) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := v.log.ckpt
	return append([]Addr(nil), c.DirBlocks...), append([]Addr(nil), c.DirCopies...)
}

// LogEntryBlocks are the blocks holding the live virtual-log entries: the
// root (the newest, which a clean stop's tail names) and the others (for
// damage tests: entries have one copy each, docs/vld.md; a clean stop
// copies what they hold and leaves none, unless Options.KeepLog).
func (v *Volume) LogEntryBlocks() (root Addr, others []Addr) {
	v.mu.Lock()
	defer v.mu.Unlock()
	root = v.log.root.Addr
	for _, e := range v.log.entries {
		if e.ref.Addr != root {
			others = append(others, e.ref.Addr)
		}
	}
	slices.Sort(others)
	return root, others
}

// PieceCopyBlocks are the blocks holding piece copies (piece_copies.go),
// sorted: after a clean stop, every piece's two (for damage tests).
func (v *Volume) PieceCopyBlocks() []Addr {
	v.mu.Lock()
	defer v.mu.Unlock()
	var out []Addr
	for _, l := range v.log.cur {
		if l.copies {
			out = append(out, l.blocks()...)
		}
	}
	slices.Sort(out)
	return out
}

// BlockSize is the size of every block in bytes.
func (v *Volume) BlockSize() int { return v.bs }

// NumBlocks is the number of blocks on the volume, fixed ones included.
func (v *Volume) NumBlocks() uint64 { return v.sb.NumBlocks }

// PayloadSize is the size of one piece payload.
func (v *Volume) PayloadSize() int { return ondisk.PayloadSize(v.bs) }

// PiecePayloadSize is the size of one piece payload on a volume of block
// size bs, for clients that size their pieces before formatting.
func PiecePayloadSize(bs int) int { return ondisk.PayloadSize(bs) }

// DirPiecesPerBlock is how many pieces one checkpoint directory block of
// size bs lists.
func DirPiecesPerBlock(bs int) int { return ondisk.DirEntriesPerBlock(bs) }

// AppData returns the client's superblock data.
func (v *Volume) AppData() []byte { return append([]byte(nil), v.sb.AppData...) }

// Kind is the client kind recorded at format time.
func (v *Volume) Kind() string { return v.sb.Kind }

// UUID identifies this format of the volume.
func (v *Volume) UUID() ondisk.UUID { return v.sb.UUID }

// Model is the simulated disk.
func (v *Volume) Model() *disk.Model { return v.model }

// Layout is the block layout of the simulated disk.
func (v *Volume) Layout() *disk.Layout { return v.layout }

// Recovery reports how Open found the log.
func (v *Volume) Recovery() RecoveryInfo { return v.recovery }

// Pieces returns a copy of the current payload of every piece.
func (v *Volume) Pieces() map[uint32][]byte {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[uint32][]byte, len(v.log.payload))
	for p, b := range v.log.payload {
		out[p] = append([]byte(nil), b...)
	}
	return out
}

// MetaFreeBlocks is the number of free blocks a commit's metadata may
// still use: the reserve included. It takes no lock (a moment's count;
// v.alloc is set once, at open), so that a caller checking it on every
// change never waits behind a device request the volume is serving.
func (v *Volume) MetaFreeBlocks() int64 { return v.alloc.FreeNow() }

// FreeBlocks is the number of free blocks data writes may still use. Like
// MetaFreeBlocks it takes no lock (the reserve is fixed at open), so that a
// file system's space check never waits behind a device request.
func (v *Volume) FreeBlocks() int64 {
	if f := v.alloc.FreeNow() - v.reserve; f > 0 {
		return f
	}
	return 0
}

// Stats returns a snapshot of the counters.
func (v *Volume) Stats() Stats {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.stats
	s.SimNowMs = v.m.now
	s.TotalBlocks = int64(v.sb.NumBlocks)
	s.FreeBlocks = v.alloc.Free()
	s.LogLength = int64(len(v.log.entries))
	s.SingleCopyPieces = int64(v.uncopiedLocked())
	s.Clock = "simulated"
	if v.opts.Clock == ClockReal {
		s.Clock = "real-time"
	}
	s.AllocDecisions = v.alloc.Decisions()
	s.AllocNs, s.AllocBlocks = v.alloc.Cost()
	s.Placement = v.place.kind.String()
	s.HeadModel = v.HeadModel()
	s.BatchPolicy, s.BatchBlocks = v.sched.Policy().String(), v.sched.BatchBlocks()
	s.WriteWall, s.FlushWall = v.wall.write.Snapshot(), v.wall.flush.Snapshot()
	return s
}

// Idle lets ms of simulated time pass with no request (think time).
func (v *Volume) Idle(ms float64) {
	v.mu.Lock()
	v.m.idle(ms)
	v.mu.Unlock()
}

// NowMs is the simulated clock.
func (v *Volume) NowMs() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m.now
}

func (v *Volume) usableLocked(running bool) error {
	if v.failed != nil {
		return v.failed
	}
	if v.phase == phaseClosed {
		return ErrClosed
	}
	if running && v.phase != phaseRun {
		return fmt.Errorf("volume not started: %w", ErrPhase)
	}
	return nil
}

func (v *Volume) checkAddr(a Addr) error {
	if a < ondisk.FixedBlocks || a >= v.sb.NumBlocks {
		return fmt.Errorf("block %d outside [%d, %d): %w", a, ondisk.FixedBlocks, v.sb.NumBlocks, ErrInvalid)
	}
	return nil
}

// DefaultReserve is how many blocks a volume of nb blocks keeps back from
// data writes when Options.ReserveBlocks is 0: 1 %, at least 32 and at
// most 8192 blocks, and never more than a quarter of the volume. A client
// sizing its address space (vld/logical) leaves them out.
func DefaultReserve(nb int64) int64 {
	r := nb / 100
	if r < 32 {
		r = 32
	}
	if r > 8192 {
		r = 8192
	}
	if r > nb/4 {
		r = nb / 4
	}
	return r
}
