package vld

import (
	"testing"

	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/ondisk"
)

// dropRecorder records the page-cache advice a volume gives its device.
type dropRecorder struct {
	device.Device
	dropped int64 // bytes advised dropped
	calls   int
}

func (d *dropRecorder) DropCache(off, n int64) error {
	d.calls++
	d.dropped += n
	return nil
}

func (*dropRecorder) Close() error { return nil }

// openRecorded formats a memory device of size bytes, clears its tail
// record as an unclean stop would, and opens it through a dropRecorder,
// so that the open scans its log window.
func openRecorded(t *testing.T, size int64) (*Volume, *dropRecorder) {
	t.Helper()
	dev := device.NewMem(size)
	if err := Format(dev, FormatOptions{Model: testModel(t, "st19101"), Kind: "test"}); err != nil {
		t.Fatal(err)
	}
	bs := int64(4096)
	if _, err := dev.WriteAt(make([]byte, bs), ondisk.TailAddr*bs); err != nil {
		t.Fatal(err)
	}
	rec := &dropRecorder{Device: dev}
	v, err := Open(rec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return v, rec
}

// TestScanDropsWhatItRead: the tail scan of a volume opened without a
// tail record reads its whole log window, and then advises the device to
// drop every byte of it from the host's page cache; a clean open reads
// and advises nothing.
func TestScanDropsWhatItRead(t *testing.T) {
	v, rec := openRecorded(t, 64<<20)
	scanned := v.Recovery().ScannedBlocks * int64(v.BlockSize())
	if scanned == 0 || rec.dropped != scanned {
		t.Fatalf("first open scanned %d bytes, advised %d dropped (%d calls)", scanned, rec.dropped, rec.calls)
	}
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil { // writes the tail record
		t.Fatal(err)
	}
	rec2 := &dropRecorder{Device: rec.Device}
	v2, err := Open(rec2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	if s := v2.Recovery().ScannedBlocks; s != 0 || rec2.calls != 0 {
		t.Fatalf("clean open scanned %d blocks, advised %d times", s, rec2.calls)
	}
}

// TestReadRunDropsTheRun: an idle-time run read (the compactor's, before
// it moves the run's live blocks away) advises the device to drop exactly
// the run it read.
func TestReadRunDropsTheRun(t *testing.T) {
	v, rec := openRecorded(t, 16<<20)
	defer v.Close()
	if err := v.Start(); err != nil {
		t.Fatal(err)
	}
	before, calls := rec.dropped, rec.calls
	bufs := make([][]byte, 8)
	for i := range bufs {
		bufs[i] = make([]byte, v.BlockSize())
	}
	if err := v.ReadRun(100, bufs); err != nil {
		t.Fatal(err)
	}
	if n := rec.dropped - before; rec.calls != calls+1 || n != int64(len(bufs)*v.BlockSize()) {
		t.Fatalf("ReadRun of %d blocks: %d more calls, %d bytes advised dropped", len(bufs), rec.calls-calls, n)
	}
}
