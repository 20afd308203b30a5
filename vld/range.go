package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/rangedisk"
)

// Range writes (Anand et al., OSDI 2008; docs/ranges.md): the client says
// where a write may go, the disk says where it went. The queueing disk that
// implements them lives in vld/rangedisk; these are the names the VLD's
// clients use.
type (
	// Extent is the half-open block interval [Begin, End).
	Extent = rangedisk.Extent
	// RangeDesc is a range descriptor: a list of ranges, or one range plus
	// a bitmap of its free blocks.
	RangeDesc = rangedisk.Desc
)

// RangeWrite is one range write: len(Data) consecutive blocks, kept in
// order, at a target inside Desc that is a multiple of Align blocks (0
// means 1; otherwise a power of two).
type RangeWrite struct {
	Desc  RangeDesc
	Align int
	Data  [][]byte
}

// RangeDisk is a disk with range writes beside the classic exact-address
// interface. Barrier tells the disk that later writes account for the
// placements of earlier ones (section 3.1.2 of the paper).
type RangeDisk interface {
	WriteRange(w RangeWrite) (Addr, error)
	WriteAt(a Addr, data [][]byte) error
	ReadAt(a Addr, n int) ([][]byte, error)
	Barrier()
}

var _ RangeDisk = (*SimRangeDisk)(nil)

// SimRangeDisk is a synchronous RangeDisk over the simulated queueing disk
// (one request at a time; queue deeper with rangedisk.Disk directly). It
// keeps the data written, so reads return it.
type SimRangeDisk struct {
	D *rangedisk.Disk
}

// NewSimRangeDisk simulates layout l's disk with scheduler s.
func NewSimRangeDisk(l *disk.Layout, s rangedisk.Scheduler) (*SimRangeDisk, error) {
	d, err := rangedisk.New(l, rangedisk.Config{Scheduler: s, KeepData: true})
	if err != nil {
		return nil, fmt.Errorf("range disk: %w", err)
	}
	return &SimRangeDisk{D: d}, nil
}

// WriteRange writes w and returns the target the disk chose.
func (s *SimRangeDisk) WriteRange(w RangeWrite) (Addr, error) {
	c, err := s.D.Do(rangedisk.Request{Kind: rangedisk.RangeWrite, Blocks: len(w.Data), Desc: w.Desc, Align: w.Align, Data: w.Data})
	if err != nil {
		return 0, fmt.Errorf("range write of %d blocks: %w", len(w.Data), err)
	}
	return Addr(c.Addr), nil
}

// WriteAt is the classic write at an exact address.
func (s *SimRangeDisk) WriteAt(a Addr, data [][]byte) error {
	_, err := s.D.Do(rangedisk.Request{Kind: rangedisk.Write, Addr: int64(a), Blocks: len(data), Data: data})
	if err != nil {
		return fmt.Errorf("write of %d blocks at %d: %w", len(data), a, err)
	}
	return nil
}

// ReadAt reads n blocks at a.
func (s *SimRangeDisk) ReadAt(a Addr, n int) ([][]byte, error) {
	c, err := s.D.Do(rangedisk.Request{Kind: rangedisk.Read, Addr: int64(a), Blocks: n})
	if err != nil {
		return nil, fmt.Errorf("read of %d blocks at %d: %w", n, a, err)
	}
	return c.Data, nil
}

// Barrier forwards the write barrier.
func (s *SimRangeDisk) Barrier() { s.D.Barrier() }
