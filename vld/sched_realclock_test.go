package vld

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
)

// opLog records the order of a device's reads and writes.
type opLog struct {
	device.Device
	mu  sync.Mutex
	ops []byte // 'r' or 'w'
}

func (d *opLog) note(op byte) {
	d.mu.Lock()
	d.ops = append(d.ops, op)
	d.mu.Unlock()
}

func (d *opLog) ReadAt(p []byte, off int64) (int, error) {
	d.note('r')
	return d.Device.ReadAt(p, off)
}

func (d *opLog) WriteAt(p []byte, off int64) (int, error) {
	d.note('w')
	return d.Device.WriteAt(p, off)
}

func (d *opLog) Close() error { return nil }

// TestRealClockWaitsWithoutLock: on the real-time clock, while a write
// batch's service time passes, the volume's lock is free (its counters
// answer at once), and a read that arrives then is served before the
// write's next batch, as read priority wants. Before the service time was
// slept without the lock, Stats waited for the whole write and the read
// came after it.
func TestRealClockWaitsWithoutLock(t *testing.T) {
	mem := device.NewMem(32 << 20)
	if err := Format(mem, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	dev := &opLog{Device: mem}
	v, err := Open(dev, Options{Clock: ClockReal, Batch: sched.Batch{Mode: sched.BatchAuto}})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	bs := v.BlockSize()
	seed, err := v.WriteBlocks([][]byte{block(bs, 1)}, WriteOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Commit(nil); err != nil {
		t.Fatal(err)
	}

	// The first sleep of the write below waits for the test; the others
	// sleep as usual.
	sleeping, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	v.mu.Lock()
	v.m.sleep = func(d time.Duration) {
		first := false
		once.Do(func() { first = true })
		if first {
			close(sleeping)
			<-release
			return
		}
		time.Sleep(d)
	}
	v.mu.Unlock()
	batch := v.Stats().BatchBlocks
	n := 4 * batch
	data := make([][]byte, n)
	for i := range data {
		data[i] = block(bs, 2)
	}
	dev.mu.Lock()
	dev.ops = nil
	dev.mu.Unlock()
	wrote := make(chan error, 1)
	go func() {
		_, err := v.WriteBlocks(data, WriteOpts{})
		wrote <- err
	}()
	select {
	case <-sleeping:
	case <-time.After(10 * time.Second):
		t.Fatal("the write never slept its service time")
	}
	stats := make(chan struct{})
	go func() { v.Stats(); close(stats) }()
	select {
	case <-stats:
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("Stats waited while a write batch's service time passed: the volume's lock is held across it")
	}
	read := make(chan error, 1)
	go func() { read <- v.ReadBlocks([]Addr{seed[0]}, [][]byte{make([]byte, bs)}) }()
	time.Sleep(50 * time.Millisecond) // the read queues
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if err := <-read; err != nil {
		t.Fatal(err)
	}
	dev.mu.Lock()
	ops := string(dev.ops)
	dev.mu.Unlock()
	last, r := strings.LastIndexByte(ops, 'w'), strings.IndexByte(ops, 'r')
	if r < 0 || r > last {
		t.Errorf("device order %q: the read, queued during the first batch, came after the write's last batch", ops)
	}
}
