package vld

import (
	"fmt"

	"github.com/vlfs/vlfs/vld/device"
)

// ReadBlocks reads several blocks, one buffer each. Consecutive addresses
// are read as one request (one controller overhead and one positioning),
// as a file written sequentially on an empty disk lies contiguously.
func (v *Volume) ReadBlocks(addrs []Addr, bufs [][]byte) error {
	if len(addrs) != len(bufs) {
		return fmt.Errorf("read %d blocks into %d buffers: %w", len(addrs), len(bufs), ErrInvalid)
	}
	for i, a := range addrs {
		if len(bufs[i]) != v.bs {
			return fmt.Errorf("read block %d: buffer %d bytes, block size %d: %w", a, len(bufs[i]), v.bs, ErrInvalid)
		}
		if err := v.checkAddr(a); err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for i := 0; i < len(addrs); {
		// Checked per run: a queued read waits with v.mu released, and the
		// volume may have failed or closed meanwhile.
		if err := v.usableLocked(false); err != nil {
			return err
		}
		j := i + 1
		for j < len(addrs) && addrs[j] == addrs[j-1]+1 && v.layout.TrackOf(int64(addrs[j])) == v.layout.TrackOf(int64(addrs[i])) {
			j++
		}
		var err error
		if v.phase == phaseRun && !v.sched.Direct() {
			err = v.readQueuedLocked(addrs[i], bufs[i:j]) // reads go first between write batches
		} else {
			err = v.readRunLocked(addrs[i], bufs[i:j])
		}
		if err != nil {
			return err
		}
		i = j
	}
	return nil
}

// readRunLocked reads consecutive blocks starting at a as one request.
func (v *Volume) readRunLocked(a Addr, bufs [][]byte) error {
	if err := v.drainLocked(); err != nil {
		return err
	}
	if _, err := device.ReadRun(v.dev, bufs, int64(a)*int64(v.bs)); err != nil {
		return fmt.Errorf("vld: read blocks %d+%d: %w", a, len(bufs), err)
	}
	if v.phase == phaseRun {
		bd := v.m.service(int64(a), len(bufs), 0, false)
		v.stats.Sim.Add(bd)
		v.stats.Reads++
		v.stats.BlocksRead += int64(len(bufs))
	}
	return nil
}
