package logical

import (
	"fmt"

	"github.com/vlfs/vlfs/vld"
)

// WriteScattered writes the logical blocks ls[i] <- data[i] as one
// request to the volume, in that order: a buffer cache flushing its dirty
// blocks. On PlaceLFS they are appended to the log together, as the
// Logical Disk writes a segment at a time; an in-place disk writes each at
// its home. Not durable until Sync. A logical block listed twice keeps the
// last copy.
func (d *Disk) WriteScattered(ls []int64, data [][]byte) error {
	if len(ls) != len(data) {
		return fmt.Errorf("write scattered: %d addresses, %d blocks: %w", len(ls), len(data), vld.ErrInvalid)
	}
	for _, l := range ls {
		if err := d.checkRange(l, 1); err != nil {
			return err
		}
	}
	if len(ls) == 0 {
		return nil
	}
	d.arrive()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.place == vld.PlaceInPlace {
		for i, l := range ls {
			if err := d.v.WriteAt(vld.Addr(d.m[l]), data[i:i+1]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := d.noteClientLocked(len(data)); err != nil {
		return err
	}
	addrs, err := d.v.WriteBlocks(data, vld.WriteOpts{})
	if err != nil {
		return err
	}
	for i, a := range addrs {
		if err := d.remapLocked(ls[i], uint32(a)); err != nil {
			return err
		}
	}
	return nil
}
