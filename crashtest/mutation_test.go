package crashtest

import (
	"strings"
	"sync"
	"testing"

	"github.com/vlfs/vlfs/vld/device"
)

// reorderDev holds back the n-th write and applies it only after the next
// flush: the ordering bug of a file system that commits a pointer before
// the block it points at is durable.
type reorderDev struct {
	device.Device
	mu   sync.Mutex
	n    int
	hold int
	held []byte
	off  int64
}

func (d *reorderDev) WriteAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n++; d.n == d.hold {
		d.held, d.off = append([]byte(nil), p...), off
		return len(p), nil
	}
	return d.Device.WriteAt(p, off)
}

// ReadAt sees the held write, as a drive's write cache serves reads: only
// durability is out of order, not what the running system reads back
// (with data checksums a read of the old bytes fails the live run itself).
func (d *reorderDev) ReadAt(p []byte, off int64) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, err := d.Device.ReadAt(p, off)
	if d.held != nil {
		lo, hi := max(off, d.off), min(off+int64(len(p)), d.off+int64(len(d.held)))
		if lo < hi {
			copy(p[lo-off:hi-off], d.held[lo-d.off:hi-d.off])
		}
	}
	return n, err
}

func (d *reorderDev) Flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.Device.Flush()
	if d.held != nil {
		_, werr := d.Device.WriteAt(d.held, d.off)
		d.held = nil
		err = werr
	}
	return err
}

func holdWrite(n int) func(device.Device) device.Device {
	return func(d device.Device) device.Device { return &reorderDev{Device: d, hold: n} }
}

// TestHarnessCatchesReordering: with the data write of an fsync'd write
// reordered after the commit's flush, the harness must report failures,
// and the shrinker must drop the ops that do not matter.
func TestHarnessCatchesReordering(t *testing.T) {
	w, err := ParseWorkloadString("mkdir A\ncreat A/foo\n---\nsetxattr A/foo user.x 1\nchmod A/foo 600\nwrite A/foo 0 4096\nfsync A/foo\n")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Seed: 1, Modes: []string{"buffered"}, wrap: holdWrite(2)}
	clean, err := CheckWorkload(w, Config{Seed: 1, Modes: []string{"buffered"}})
	if err != nil || clean.Failing != 0 {
		t.Fatalf("without the mutation: %v, %+v", err, clean.Failures)
	}
	res, err := CheckWorkload(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failing == 0 {
		t.Fatalf("the reordering went unnoticed in %d crash states", res.States)
	}
	t.Logf("%d of %d states fail; first: %v", res.Failing, res.States, res.Failures[0])
	min := Shrink(res.Failures[0], cfg)
	t.Logf("shrunk to:\n%s", min.Workload)
	if len(min.Workload.Ops)+len(min.Workload.Setup) >= len(w.Ops)+len(w.Setup) {
		t.Errorf("shrinking removed nothing:\n%s", min.Workload)
	}
	if !strings.Contains(min.Workload.String(), "write A/foo") {
		t.Errorf("the shrunk workload lost the write that exposes the bug:\n%s", min.Workload)
	}
}

// TestReportSavesReplay: a failing run saves the shrunk workload with its
// replay command, and replaying that one state fails again.
func TestReportSavesReplay(t *testing.T) {
	w, _ := ParseWorkloadString("# name: reorder\nmkdir A\ncreat A/foo\n---\nwrite A/foo 0 4096\nfsync A/foo\n")
	dir := t.TempDir()
	cfg := Config{Seed: 3, Modes: []string{"writeout"}, wrap: holdWrite(2), SaveDir: dir}
	res := Run([]Workload{w}, cfg)
	if res.Failures == 0 || len(res.Reports) != 1 {
		t.Fatalf("no failure reported: %+v", res)
	}
	r := res.Reports[0]
	if !strings.HasPrefix(r.Saved, dir) || !strings.Contains(r.Replay, "--state '") || !strings.Contains(r.Replay, "--mode writeout") {
		t.Fatalf("report: %+v", r)
	}
	saved, err := LoadWorkload(r.Saved)
	if err != nil {
		t.Fatal(err)
	}
	one := cfg
	one.Only = r.Shrunk.State.String()
	again, err := CheckWorkload(saved, one)
	if err != nil {
		t.Fatal(err)
	}
	if again.States != 1 || again.Failing != 1 {
		t.Errorf("replaying state %s: %d states, %d failing", one.Only, again.States, again.Failing)
	}
}
