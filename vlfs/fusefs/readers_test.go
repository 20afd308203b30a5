package fusefs_test

import (
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/fstest"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// onThread runs f on a goroutine locked to one OS thread, so that every
// request it causes carries one thread ID, and returns f's error.
func onThread(f func() error) <-chan error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		done <- f()
	}()
	return done
}

// TestSoloWriterOneReader: while a single thread writes and fsyncs, one
// reader serves it; the old pool kept four waiting, so that each of a
// writer's WRITE and FSYNC woke a thread that had slept (docs/fuse.md,
// "Readers"). A thread new to the mount counts as a second client for the
// window, so the pool may grow at first; the readers it grew leave after a
// request each once the window has passed. A request the kernel sends from
// one of its own threads (a sync(2) elsewhere on the machine writing back
// the file's times) is a second thread for a window too, so a few samples
// may see two readers; the old pool never had one.
func TestSoloWriterOneReader(t *testing.T) {
	const window = 2 * time.Millisecond // short: a stray request elsewhere costs few samples
	m := fstest.MountFS(t, fstest.Options{Fuse: fusefs.Options{ConcurrencyWindow: window}})
	var one, samples, last int
	err := <-onThread(func() error {
		f, err := os.Create(filepath.Join(m.Dir, "f"))
		if err != nil {
			return err
		}
		defer f.Close()
		block := make([]byte, 4096)
		round := func(i int) error {
			if _, err := f.WriteAt(block, int64(i%16)*4096); err != nil {
				return err
			}
			return f.Sync()
		}
		for i := range 10 {
			if err := round(i); err != nil {
				return err
			}
		}
		time.Sleep(10 * window)
		for i := range 200 {
			if err := round(i); err != nil {
				return err
			}
			last = m.Server.Report().Readers
			if i >= 5 {
				samples++
				if last == 1 {
					one++
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if one < samples*8/10 {
		t.Errorf("one reader in %d of %d samples while one thread wrote and fsynced (%d readers at the end); want at least 80 %%", one, samples, last)
	}
}

// gatedFlush is a device whose Flush, once armed, blocks until released,
// so that a test can act while an fsync waits on the image.
type gatedFlush struct {
	*device.File
	armed   atomic.Bool
	waiting chan struct{} // closed when an armed Flush blocks
	release chan struct{}
}

func (d *gatedFlush) Flush() error {
	if d.armed.CompareAndSwap(true, false) {
		close(d.waiting)
		<-d.release
	}
	return d.File.Flush()
}

// TestSecondThreadServedDuringFsync: once a second client thread has used
// the mount, readers are kept waiting beside the busy ones, so that
// thread's requests are answered while an fsync waits on the image; with one
// reader they would queue behind the fsync (here, until the test gives up).
func TestSecondThreadServedDuringFsync(t *testing.T) {
	gate := &gatedFlush{waiting: make(chan struct{}), release: make(chan struct{})}
	m := fstest.MountFS(t, fstest.Options{
		Fuse:       fusefs.Options{ConcurrencyWindow: time.Minute},
		WrapDevice: func(f *device.File) device.Device { gate.File = f; return gate },
	})
	stat := func(name string) error {
		_, err := os.Stat(filepath.Join(m.Dir, name))
		if os.IsNotExist(err) {
			return nil // a LOOKUP answered
		}
		return err
	}
	// Thread B looks names up on request; its first makes the clients two
	// threads.
	b := make(chan string)
	bDone := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // every request of B carries one thread ID
		defer runtime.UnlockOSThread()
		for name := range b {
			bDone <- stat(name)
		}
	}()
	defer close(b)
	b <- "b0"
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	// Thread A fsyncs and blocks in the image's flush.
	gate.armed.Store(true)
	aSync := onThread(func() error {
		name := filepath.Join(m.Dir, "a")
		if err := os.WriteFile(name, []byte("durable"), 0o644); err != nil {
			return err
		}
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		return f.Sync()
	})
	select {
	case <-gate.waiting:
	case err := <-aSync:
		t.Fatalf("the fsync ended before its flush was held: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the fsync never reached the image's flush")
	}
	b <- "b1"
	select {
	case err := <-bDone:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Error("thread B's lookup was not answered while thread A's fsync waited on the image")
	}
	close(gate.release)
	if err := <-aSync; err != nil {
		t.Fatalf("fsync: %v", err)
	}
}
