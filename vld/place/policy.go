package place

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// Policy chooses where a request's blocks go: the one thing the volume
// asks of a placement policy.
type Policy interface {
	// Place chooses where r's r.N blocks go, in order, starting from the
	// moment at, marks them used in the allocator and returns them as
	// runs that never span tracks. On failure nothing stays marked and
	// the error is a *NoSpace.
	Place(at At, r Request) ([]Run, error)
}

// Request is one placement: N blocks inside Window, with the client's
// hints.
type Request struct {
	N      int
	Window alloc.Window // the tracks the blocks may go on (the zero value: all)
	// Near is a hint per block (nil, or one per block): the block's old
	// copy, the file's previous block or its inode's block; 0 means none
	// (vld.WriteOpts.Near). Eager and LFS placement ignore it.
	Near []uint64
	// Replaces[i] (nil, or one per block) says Near[i] is block i's own
	// old copy (vld.WriteOpts.Replaces).
	Replaces []bool
}

// At is the moment a placement starts from, as the volume's clock has
// it.
type At struct {
	Head  disk.Head // where the disk head is
	NowMs float64   // simulated time, before the write's controller overhead
	// Flushes counts the device flushes so far: LFS placement applies its
	// partial-segment rule once per flush.
	Flushes int64
}

// Run is a contiguous range of blocks chosen for one request.
type Run struct {
	Start int64
	N     int
}

// Disk is what every policy places on: the volume's free space, its
// geometry and its head model. The volume builds it once, at open.
type Disk struct {
	Alloc  *alloc.Allocator
	Layout *disk.Layout
	Head   Head
	// MaxTrack is the capacity of the largest track: no run is longer.
	MaxTrack int
}

// blocks is the number of blocks on the volume, fixed ones included.
func (d Disk) blocks() int64 { return d.Layout.NumBlocks() }

// overheadMs is the controller overhead that precedes a write's
// positioning.
func (d Disk) overheadMs() float64 { return d.Layout.Model().WriteOverheadMs }

// Head is the volume's head model (vld/head.go): the simulated head,
// which knows the geometry and where the head is, or a measured profile,
// which knows only where and when the last request ended. Policies price
// their candidates through it.
type Head interface {
	// Choose picks the first block of a run of n free blocks for a write
	// whose positioning starts at startMs with the head at h, inside w
	// (eager placement).
	Choose(a *alloc.Allocator, h disk.Head, startMs float64, n int, w alloc.Window) alloc.Choice
	// ChooseInRanges picks a start of k blocks inside ext (free runs of
	// at least k blocks, each on one track) for a write whose positioning
	// starts at startMs with the head at h, and its predicted positioning
	// cost; ok is false when none fits.
	ChooseInRanges(ext []rangedisk.Extent, k int, h disk.Head, startMs float64) (start int64, costMs float64, ok bool)
	// RunCost is the predicted positioning cost of a write of k blocks at
	// b whose positioning starts at startMs with the head at h.
	RunCost(b int64, k int, h disk.Head, startMs float64) float64
}

// NoSpace is the error of a placement that found no room. It carries no
// sentinel of the volume's (this package may not import vld): the volume
// reports it as vld.ErrNoSpace, with What as the context.
type NoSpace struct {
	What string // what could not be placed: "placing 3 blocks in place"
}

func (e *NoSpace) Error() string { return e.What + ": no space left" }

// noSpace is a NoSpace whose What is formatted as fmt.Sprintf does.
func noSpace(format string, a ...any) error { return &NoSpace{What: fmt.Sprintf(format, a...)} }
