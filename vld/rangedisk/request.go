package rangedisk

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/disk"
)

// Kind is what a request does.
type Kind uint8

const (
	// Read reads Blocks blocks at Addr.
	Read Kind = iota
	// Write writes Blocks blocks at Addr: the classic exact-address write.
	Write
	// RangeWrite writes Blocks consecutive blocks at a target the disk
	// chooses inside Desc, aligned to Align, and reports it.
	RangeWrite
)

func (k Kind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case RangeWrite:
		return "range-write"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Request is one command sent to the disk.
type Request struct {
	Kind   Kind
	Addr   int64 // Read, Write: first block
	Blocks int   // blocks transferred; at least 1
	Desc   Desc  // RangeWrite: where it may go
	Align  int   // RangeWrite: target is a multiple of Align blocks; 0 means 1
	// Data is optional: nil simulates timing only; otherwise Blocks blocks
	// of the layout's block size, kept by the disk and returned by reads.
	Data [][]byte
}

// Completion reports one finished request.
type Completion struct {
	Tag    uint64
	Kind   Kind
	Addr   int64 // where it went: for a range write, the target the disk chose
	Blocks int
	Access disk.Access // simulated service time by cause
	// SubmitMs, StartMs and EndMs are on the disk's simulated clock.
	SubmitMs, StartMs, EndMs float64
	// Estimates is the number of service-time estimates made by the
	// decision that chose this request (over the whole queue).
	Estimates int
	Data      [][]byte // Read with a data-keeping disk: the blocks read
	// Err is ErrNoTarget when a range write found every target taken; such
	// a write takes no time and writes nothing.
	Err error
}

// pending is a queued request with what the schedulers precomputed for it.
type pending struct {
	tag      uint64
	req      Request
	submitMs float64
	epoch    uint64   // barriers issued before it was submitted
	runs     []Extent // RangeWrite: merged target runs
	pieces   []piece  // RangeWrite under HRS: allowed starts per track
	cands    []int64  // RangeWrite under ECS: expanded single-block targets
}

// write reports whether p writes (either kind).
func (p *pending) write() bool { return p.req.Kind != Read }

// validate checks r against a layout and returns its alignment and target
// runs (nil for exact requests).
func validate(l *disk.Layout, r Request) (int, []Extent, error) {
	if r.Blocks < 1 {
		return 0, nil, fmt.Errorf("%w: %d blocks", ErrBadRequest, r.Blocks)
	}
	if err := checkData(l, r); err != nil {
		return 0, nil, err
	}
	switch r.Kind {
	case Read, Write:
		// Not l.Contains: Addr+Blocks can overflow for a huge Blocks.
		if r.Addr < 0 || r.Addr >= l.NumBlocks() || int64(r.Blocks) > l.NumBlocks()-r.Addr {
			return 0, nil, fmt.Errorf("%w: %s of %d blocks at %d runs past the disk's %d blocks", ErrTooLarge, r.Kind, r.Blocks, r.Addr, l.NumBlocks())
		}
		return 1, nil, nil
	case RangeWrite:
		align, err := checkAlign(r.Align)
		if err != nil {
			return 0, nil, err
		}
		rs, err := r.Desc.Runs(l.NumBlocks(), r.Blocks, align)
		return align, rs, err
	}
	return 0, nil, fmt.Errorf("%w: unknown kind %d", ErrBadRequest, r.Kind)
}

// checkData accepts no data, or exactly Blocks blocks of the block size on
// a write.
func checkData(l *disk.Layout, r Request) error {
	if r.Data == nil {
		return nil
	}
	if r.Kind == Read || len(r.Data) != r.Blocks {
		return fmt.Errorf("%w: %s of %d blocks carries %d data blocks", ErrBadRequest, r.Kind, r.Blocks, len(r.Data))
	}
	for i, b := range r.Data {
		if len(b) != l.BlockSize() {
			return fmt.Errorf("%w: data block %d has %d bytes, not %d", ErrBadRequest, i, len(b), l.BlockSize())
		}
	}
	return nil
}
