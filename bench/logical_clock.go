package bench

import (
	"sync"

	"github.com/vlfs/vlfs/diskfs"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// clockSwitch is the Disk the benchmark serves: a logical disk on a memory
// device that can be reopened with another clock while the upper file
// system stays mounted. Setting up (mkfs, filling, warming up) on the
// virtual clock takes no wall time; the measured writes may then run on
// the real-time clock, where every request sleeps its service time, as the
// paper's in-kernel simulator did.
type clockSwitch struct {
	mu        sync.RWMutex // write-held while the volume is swapped
	l         *diskfs.Logical
	dev       *device.Mem
	head      *profile.Profile // the head model every opening uses; nil: simulated
	headModel string           // what the open volume says it places by
}

var _ diskfs.Disk = (*clockSwitch)(nil)

// memKeepOpen keeps the memory device's contents across a volume's Close.
type memKeepOpen struct{ *device.Mem }

func (memKeepOpen) Close() error { return nil }

// newClockSwitch formats a memory device of size bytes as a logical disk
// with placement p and opens it on the virtual clock with head (nil: the
// simulated head).
func newClockSwitch(size int64, fo vld.FormatOptions, p vld.Placement, head *profile.Profile) (*clockSwitch, error) {
	c := &clockSwitch{dev: device.NewMem(size), head: head}
	if err := logical.FormatPlaced(c.dev, fo, p); err != nil {
		return nil, err
	}
	return c, c.open(vld.ClockVirtual)
}

func (c *clockSwitch) open(clock vld.Clock) error {
	d, err := logical.Open(memKeepOpen{c.dev}, vld.Options{Clock: clock, Head: c.head})
	if err != nil {
		return err
	}
	c.l, c.headModel = diskfs.NewLogical(d), d.Volume().HeadModel()
	return nil
}

// reopen closes the volume cleanly and opens it again with clock.
func (c *clockSwitch) reopen(clock vld.Clock) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.l.Close(); err != nil {
		return err
	}
	return c.open(clock)
}

// headName is what the open volume says it places writes by.
func (c *clockSwitch) headName() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.headModel
}

func (c *clockSwitch) disk() *diskfs.Logical {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.l
}

// Close closes the volume.
func (c *clockSwitch) Close() error { return c.disk().Close() }

func (c *clockSwitch) Size() int64 { return c.disk().Size() }

func (c *clockSwitch) ReadAt(p []byte, off int64) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.l.ReadAt(p, off)
}

func (c *clockSwitch) WriteAt(p []byte, off int64) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.l.WriteAt(p, off)
}

func (c *clockSwitch) Discard(off, n int64) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.l.Discard(off, n)
}

func (c *clockSwitch) Sync() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.l.Sync()
}

func (c *clockSwitch) Stats() diskfs.Stats { return c.disk().Stats() }
