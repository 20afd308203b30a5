package sched

import (
	"fmt"
	"math"
	"strconv"

	"github.com/vlfs/vlfs/vld/disk"
)

// The request scheduler (this package, and the volume's
// vld/sched_dispatch.go) implements Carson and Setia's
// read-priority write batching ("Optimal Write Batch Size in
// Log-Structured File Systems"): reads and writes wait in separate queues;
// writes leave in batches of a fixed number of blocks; whenever the disk
// finishes something, every queued read goes before the next write batch
// (non-preemptive priority). The batch size that minimises read response
// time is c* = sqrt(D^2 + sigma^2) / k, formula (10), a property of the
// disk alone. docs/batching.md has the design and the measurements.

// BatchMode selects how the scheduler issues writes.
type BatchMode uint8

const (
	// BatchFIFO (the zero value) serves one arrival-ordered stream, each
	// request whole: the VLD as it was before batching.
	BatchFIFO BatchMode = iota
	// BatchAuto batches writes by c* of the volume's disk model (the whole
	// size `vlfs cstar` prints), reads first between batches.
	BatchAuto
	// BatchAutoTrack rounds c* to a whole number of tracks (at least one),
	// the variant of section 4 of the paper: a batch that fills tracks.
	BatchAutoTrack
	// BatchFixed batches writes by Batch.Blocks blocks, reads first.
	BatchFixed
	// BatchSegment batches writes by whole LFS segments (SegmentBytes),
	// reads first between segments: the baseline c* improves on.
	BatchSegment
)

// SegmentBytes is the size of one whole-segment batch (an LFS segment).
const SegmentBytes = 512 << 10

// Batch is the write-batching policy of a volume (vld.Options.Batch).
type Batch struct {
	Mode   BatchMode
	Blocks int // batch size for BatchFixed; ignored otherwise
}

// ParseBatch reads a policy as `--batch` spells it: "auto" (c*),
// "auto-track" (c* in whole tracks), "segment" (512 KiB), "fifo", or a
// positive number of blocks. An error names the bad value; it carries no
// sentinel.
func ParseBatch(s string) (Batch, error) {
	switch s {
	case "auto":
		return Batch{Mode: BatchAuto}, nil
	case "auto-track", "track":
		return Batch{Mode: BatchAutoTrack}, nil
	case "segment":
		return Batch{Mode: BatchSegment}, nil
	case "fifo":
		return Batch{Mode: BatchFIFO}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return Batch{}, fmt.Errorf("batch %q: want auto, auto-track, segment, fifo or a positive number of blocks", s)
	}
	return Batch{Mode: BatchFixed, Blocks: n}, nil
}

// String is the policy as ParseBatch reads it.
func (b Batch) String() string {
	switch b.Mode {
	case BatchAuto:
		return "auto"
	case BatchAutoTrack:
		return "auto-track"
	case BatchFixed:
		return strconv.Itoa(b.Blocks)
	case BatchSegment:
		return "segment"
	}
	return "fifo"
}

// BatchBlocksFor is the batch size, in blocks, that policy b puts in force
// on a disk model at a block size; 0 for FIFO (whole requests, no
// batching). Errors name the bad parameter; they carry no sentinel (vld.Open
// wraps them in vld.ErrInvalid).
func BatchBlocksFor(b Batch, m *disk.Model, blockSize int) (int, error) {
	if blockSize <= 0 {
		return 0, fmt.Errorf("batch: block size must be positive, got %d", blockSize)
	}
	switch b.Mode {
	case BatchFIFO:
		return 0, nil
	case BatchFixed:
		if b.Blocks <= 0 {
			return 0, fmt.Errorf("batch: blocks must be positive, got %d", b.Blocks)
		}
		return b.Blocks, nil
	case BatchSegment:
		return max(SegmentBytes/blockSize, 1), nil
	case BatchAuto, BatchAutoTrack:
		if m == nil {
			return 0, fmt.Errorf("batch %s: no disk model", b)
		}
		in, err := disk.CStarFor(m, blockSize)
		if err != nil {
			return 0, fmt.Errorf("batch %s: %w", b, err)
		}
		if b.Mode == BatchAuto {
			return in.Batch, nil
		}
		return trackBatch(in, m.Zones[0].SectorsPerTrack*disk.SectorSize/blockSize), nil
	}
	return 0, fmt.Errorf("batch: unknown mode %d", b.Mode)
}

// trackBatch is the multiple of a track (per blocks) next to c*, floor or
// ceiling, whichever formula (8) prefers; at least one track.
func trackBatch(in disk.CStarInputs, per int) int {
	per = max(per, 1)
	f := func(c float64) float64 { return (in.DMs*in.DMs+in.Sigma2Ms2)/c + in.KMs*in.KMs*c }
	lo := max(math.Floor(in.CStar/float64(per)), 1)
	hi := max(math.Ceil(in.CStar/float64(per)), 1)
	if f(hi*float64(per)) < f(lo*float64(per)) {
		return int(hi) * per
	}
	return int(lo) * per
}
