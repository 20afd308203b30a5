package vld

import (
	"errors"
	"fmt"
	"time"

	"github.com/vlfs/vlfs/vld/alloc"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/ondisk"
	"github.com/vlfs/vlfs/vld/sched"
)

// Open opens a formatted volume and recovers its virtual log: the newest
// valid checkpoint, then the tree of entries from the root named by the tail
// record, or found by a bounded scan of the log window after an unclean
// stop (docs/vld.md). The volume starts in the mount phase: the client
// declares its live blocks with MarkLive, then calls Start.
func Open(dev device.Device, o Options) (*Volume, error) {
	t0 := time.Now()
	if !(o.LogWindow >= 0 && o.LogWindow <= 1) {
		return nil, fmt.Errorf("open: log window %v of the disk: want a fraction in (0, 1], or 0 for the default: %w", o.LogWindow, ErrInvalid)
	}
	v := &Volume{dev: dev, opts: o, written: map[Addr]uint32{}, pending: map[Addr]bool{}, log: newVlog()}
	if err := v.readSuperblock(); err != nil {
		return nil, err
	}
	th := o.FillThreshold
	if th == 0 {
		th = 0.75
	}
	v.alloc = alloc.New(v.layout, th)
	v.m = newMech(v.layout, o.Clock)
	batch, err := sched.BatchBlocksFor(o.Batch, v.model, v.bs)
	if err != nil {
		return nil, fmt.Errorf("open: %w: %w", err, ErrInvalid)
	}
	v.sched = sched.New[*request](o.Batch, batch)
	if v.head, err = chooseHead(o, v.m, v.bs); err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	if err := v.initPlacement(); err != nil {
		return nil, err
	}
	v.buf = make([]byte, v.bs)
	v.reserve = o.ReserveBlocks
	if v.reserve <= 0 {
		v.reserve = DefaultReserve(int64(v.sb.NumBlocks))
	}
	for _, a := range fixedAddrs() {
		v.alloc.MarkUsed(int64(a))
	}
	v.recovery.SuperblockCopies = len(v.markSuperCopiesLocked(v.superRaw))
	v.recovery.SuperblockCopy = v.superFrom
	if err := v.recover(); err != nil {
		return nil, err
	}
	v.lost = v.lostRedundancy()
	if !o.ReadOnly && v.superFrom != 0 {
		if err := v.restorePrimary(v.superRaw); err != nil {
			return nil, err
		}
	}
	if !o.ReadOnly {
		// Clear the tail record before anything new is written, so that a
		// later crash is never taken for this clean stop.
		clear(v.buf)
		if _, err := dev.WriteAt(v.buf, ondisk.TailAddr*int64(v.bs)); err != nil {
			return nil, fmt.Errorf("open: clearing tail record: %w", err)
		}
		if err := dev.Flush(); err != nil {
			return nil, fmt.Errorf("open: flush: %w", err)
		}
	}
	v.recovery.WallMs = float64(time.Since(t0)) / float64(time.Millisecond)
	return v, nil
}

func (v *Volume) readSuperblock() error {
	b := make([]byte, ondisk.MinBlockSize)
	if v.dev.Size() < int64(len(b)) {
		return fmt.Errorf("open: image of %d bytes is too small to hold a superblock: %w", v.dev.Size(), ErrNotFormatted)
	}
	if _, err := v.dev.ReadAt(b, 0); err != nil {
		return fmt.Errorf("open: reading superblock: %w", err)
	}
	sb, err := ondisk.DecodeSuperblock(b)
	if errors.Is(err, ondisk.ErrTooSmall) && len(b) >= ondisk.MinBlockSize {
		// Larger block: read the whole of it.
		if bs := int(leUint32(b[12:])); bs > len(b) && int64(bs) <= v.dev.Size() {
			b = make([]byte, bs)
			if _, err := v.dev.ReadAt(b, 0); err != nil {
				return fmt.Errorf("open: reading superblock: %w", err)
			}
			sb, err = ondisk.DecodeSuperblock(b)
		}
	}
	if err == nil {
		v.superRaw = b[:sb.BlockSize]
	} else if superDamaged(err) {
		if csb, raw, at, cerr := v.readSuperCopy(b, err); cerr == nil {
			v.logf("vld: the superblock at block 0 is damaged (%v); using its copy at block %d", err, at)
			sb, err, v.superRaw, v.superFrom = csb, nil, raw, at
		}
	}
	switch {
	case errors.Is(err, ondisk.ErrBadMagic) || errors.Is(err, ondisk.ErrZeroed):
		return fmt.Errorf("open: %w: %w", ErrNotFormatted, err)
	case err != nil:
		return fmt.Errorf("open: %w: %w", ErrCorrupt, err)
	}
	v.sb, v.bs = sb, int(sb.BlockSize)
	if need := int64(sb.NumBlocks) * int64(v.bs); v.dev.Size() < need {
		return fmt.Errorf("open: image is %d bytes but the volume needs %d (truncated image?): %w", v.dev.Size(), need, ErrCorrupt)
	}
	m, err := disk.Parse(sb.ModelJSON)
	if err != nil {
		return fmt.Errorf("open: disk model in superblock: %w: %w", ErrCorrupt, err)
	}
	l, err := disk.NewLayout(m, v.bs, int64(sb.NumBlocks))
	if err != nil {
		return fmt.Errorf("open: %w: %w", ErrCorrupt, err)
	}
	if l.NumBlocks() != int64(sb.NumBlocks) {
		return fmt.Errorf("open: superblock says %d blocks, disk model holds %d: %w", sb.NumBlocks, l.NumBlocks(), ErrCorrupt)
	}
	v.model, v.layout = m, l
	return nil
}

func leUint32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// readRaw reads block a without charging simulated time (recovery).
func (v *Volume) readRaw(a Addr, buf []byte) error {
	if a >= v.sb.NumBlocks {
		return fmt.Errorf("block %d beyond the volume (%d blocks): %w", a, v.sb.NumBlocks, ErrCorrupt)
	}
	if err := v.drainLocked(); err != nil { // Check on a running volume
		return err
	}
	if _, err := v.dev.ReadAt(buf, int64(a)*int64(v.bs)); err != nil {
		return fmt.Errorf("reading block %d: %w", a, err)
	}
	return nil
}
