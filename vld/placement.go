package vld

import (
	"errors"
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/place"
	"github.com/vlfs/vlfs/vld/sched"
)

// Placement is where a volume puts the blocks a client writes: the three
// designs the virtual-log paper compares (docs/placement.md). It is fixed
// at format time and kept in the superblock, so every open of the volume
// places the same way. A logical disk (vld/logical) keeps its own copy in
// its app data.
type Placement uint8

// Placements. Their values are stored on disk: never change them.
const (
	// PlaceEager writes every block at the free location the head reaches
	// first (the VLD).
	PlaceEager Placement = iota
	// PlaceInPlace rewrites a block over the copy it replaces and puts a
	// new block at the first free address at or after its hint (FFS-like):
	// the regular disk the paper compares against. A logical disk gives
	// every logical block a fixed home instead.
	PlaceInPlace
	// PlaceLFS appends blocks contiguously in 512 KiB segments, as a
	// log-structured file system (vld/place/lfs.go).
	PlaceLFS
	// PlaceRange places a client write's blocks by range writes near their
	// hints (the file's previous block or its inode), chosen by HRS from
	// the head position (vld/place/range.go, docs/ranges.md). Writes without
	// any hint (inode blocks, the log) are placed eagerly.
	PlaceRange
)

// placeMax is the largest valid Placement.
const placeMax = PlaceRange

// ParsePlacement reads "eager", "inplace", "lfs" or "range".
func ParsePlacement(s string) (Placement, error) {
	switch s {
	case "eager", "":
		return PlaceEager, nil
	case "inplace":
		return PlaceInPlace, nil
	case "lfs":
		return PlaceLFS, nil
	case "range":
		return PlaceRange, nil
	}
	return 0, fmt.Errorf("placement %q: want eager, inplace, lfs or range: %w", s, ErrInvalid)
}

func (p Placement) String() string {
	switch p {
	case PlaceInPlace:
		return "inplace"
	case PlaceLFS:
		return "lfs"
	case PlaceRange:
		return "range"
	}
	return "eager"
}

// placeState is a volume's placement policy and the hints of the write
// being placed. Guarded by Volume.mu.
type placeState struct {
	kind   Placement
	policy place.Policy // the policy of kind (vld/place)
	// near and replaces are WriteOpts' hints for the next placeLocked call
	// of a client write; taken (and cleared) by it, so the log entries and
	// directory blocks the same call may place see none.
	near     []Addr
	replaces []bool
	rng      *place.Range // PlaceRange only: policy, for the queue's choice
	// fifoRanges serves queued range writes in arrival order, as before
	// sched_range.go (tests compare the two).
	fifoRanges bool
	lfs        *place.LFS // PlaceLFS only: policy, for its stats and the cleaner
}

// initPlacement reads the policy from the superblock and builds it on the
// allocator and the head model, which must be set. Policies other than
// eager serve requests one at a time (FIFO): the baselines are measured
// without batching, but for an in-place volume asked to batch
// (Options.BatchInPlace).
func (v *Volume) initPlacement() error {
	p := Placement(v.sb.Placement)
	if p > placeMax {
		return fmt.Errorf("open: superblock placement %d: %w", p, ErrCorrupt)
	}
	v.place.kind = p
	d := v.placeDisk()
	switch p {
	case PlaceEager:
		v.place.policy = place.NewEager(d)
		return nil
	case PlaceInPlace:
		v.place.policy = place.NewInPlace(d)
		if v.opts.BatchInPlace {
			return nil
		}
	case PlaceLFS:
		v.place.lfs = place.NewLFS(d, v.bs, v.chargeRewriteLocked)
		v.place.policy = v.place.lfs
	case PlaceRange:
		v.place.rng = place.NewRange(d)
		v.place.policy = v.place.rng
	}
	v.sched = sched.New[*request](sched.Batch{}, 0)
	return nil
}

// placeDisk is what the volume's policy places on.
func (v *Volume) placeDisk() place.Disk {
	return place.Disk{Alloc: v.alloc, Layout: v.layout, Head: v.head, MaxTrack: v.maxTrackBlocks()}
}

// Placement is how the volume places client writes.
func (v *Volume) Placement() Placement { return v.place.kind }

// ReadOnly reports whether the volume was opened read-only
// (Options.ReadOnly): a file system on it must not change anything.
func (v *Volume) ReadOnly() bool { return v.opts.ReadOnly }

// hintLocked records o's hints for the placement of the next n blocks.
// Hints of the wrong length are ignored.
func (v *Volume) hintLocked(o WriteOpts, n int) {
	v.place.near, v.place.replaces = nil, nil
	if len(o.Near) == n {
		v.place.near = o.Near
	}
	if len(o.Replaces) == n && v.place.near != nil {
		v.place.replaces = o.Replaces
	}
}

// placeLocked chooses where n blocks go, in order, by the volume's
// policy, inside window w (the log window, or the zero Window for all),
// with the hints hintLocked recorded, which it takes. The blocks are
// marked used. Runs never span tracks.
func (v *Volume) placeLocked(n int, w alloc.Window) ([]run, error) {
	// Held-back writes go first, so that placement starts from where the
	// head really is.
	if err := v.drainLocked(); err != nil {
		return nil, err
	}
	near, rep := v.place.near, v.place.replaces
	v.place.near, v.place.replaces = nil, nil
	if !slices.ContainsFunc(near, func(a Addr) bool { return a != 0 }) {
		// Log entries, checkpoints, inode blocks: no block has a hint,
		// so the request has none (range placement places it eagerly).
		near, rep = nil, nil
	}
	runs, err := v.place.policy.Place(v.placeAtLocked(), place.Request{N: n, Window: w, Near: near, Replaces: rep})
	return runs, placeError(err)
}

// placeAtLocked is the moment a placement starts from: the head and the
// clock as they are now.
func (v *Volume) placeAtLocked() place.At {
	return place.At{Head: v.m.head, NowMs: v.m.now, Flushes: v.stats.Flushes}
}

// placeError gives a policy's NoSpace the volume's sentinel, in the
// policy's words.
func placeError(err error) error {
	var ns *place.NoSpace
	if errors.As(err, &ns) {
		return fmt.Errorf("%s: %w", ns.What, ErrNoSpace)
	}
	return err
}

// chargeRewriteLocked charges LFS placement's rewrite of a partial
// segment's prefix (blocks blocks, ms of transfer) to the clock and the
// counters, as one more part of the write that follows it.
func (v *Volume) chargeRewriteLocked(ms float64, blocks int64) {
	bd := Breakdown{TransferMs: ms}
	v.m.now += bd.TransferMs
	v.stats.Sim.Add(bd)
	v.stats.WriteSim.Add(bd)
	v.stats.BlocksWritten += blocks
	v.stats.SectorsWritten += blocks * int64(v.bs/disk.SectorSize)
}

// oneRunLocked says whether WriteCommit writes n data blocks and k entries
// as one run in the log window: an in-place volume never does (its data has
// homes), a log always does (data and metadata share the segment), eager
// placement when that is cheaper.
func (v *Volume) oneRunLocked(n, k int) bool {
	switch v.place.kind {
	case PlaceInPlace:
		return false
	case PlaceLFS:
		return v.place.lfs.FitsWindow(v.placeAtLocked(), n+k, v.logWindow())
	}
	return v.oneRunCheaperLocked(n, k)
}
