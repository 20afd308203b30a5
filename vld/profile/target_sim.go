package profile

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/disk"
)

// Sim is the simulator as a black box: a device of Size bytes whose writes
// take the time the disk model's Service says, on a virtual clock. The
// measurement sees only what it would see of a real device, the time each
// write took; the geometry and the head position stay inside.
type Sim struct {
	l    *disk.Layout
	head disk.Head
	now  float64
}

// NewSim lays m out in blockBytes blocks over its first regionBytes (0:
// the whole disk), the same layout a VLD volume of that size and block
// size uses, so that a profile taken here describes that volume.
func NewSim(m *disk.Model, blockBytes int, regionBytes int64) (*Sim, error) {
	if blockBytes <= 0 || regionBytes < 0 {
		return nil, fmt.Errorf("sim: block size %d, region %d: %w", blockBytes, regionBytes, ErrInvalid)
	}
	l, err := disk.NewLayout(m, blockBytes, regionBytes/int64(blockBytes))
	if err != nil {
		return nil, fmt.Errorf("sim: %w: %w", ErrInvalid, err)
	}
	return &Sim{l: l}, nil
}

// Size implements Target.
func (s *Sim) Size() int64 { return s.l.NumBlocks() * int64(s.l.BlockSize()) }

// Write implements Target: whole blocks only, inside the region.
func (s *Sim) Write(off int64, buf []byte) (float64, error) {
	bs := int64(s.l.BlockSize())
	if off%bs != 0 || int64(len(buf))%bs != 0 || len(buf) == 0 {
		return 0, fmt.Errorf("sim: write of %d bytes at %d: not whole %d-byte blocks: %w", len(buf), off, bs, ErrInvalid)
	}
	if err := checkRegion(off, len(buf), s.Size()); err != nil {
		return 0, err
	}
	acc, h := s.l.Service(s.head, s.now, off/bs, len(buf)/int(bs), true)
	s.head = h
	ms := acc.TotalMs()
	s.now += ms
	return ms, nil
}

// Wait implements Target.
func (s *Sim) Wait(ms float64) {
	if ms > 0 {
		s.now += ms
	}
}

// Info implements Target.
func (s *Sim) Info() TargetInfo {
	return TargetInfo{Kind: KindSim, Clock: ClockSimulated, Dsync: true}
}

// checkRegion refuses any write not wholly inside [0, size).
func checkRegion(off int64, n int, size int64) error {
	if off < 0 || int64(n) > size || off > size-int64(n) {
		return fmt.Errorf("%d bytes at %d, region is [0, %d): %w", n, off, size, ErrOutside)
	}
	return nil
}
