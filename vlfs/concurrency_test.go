package vlfs

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrentFsync runs writers that fsync after every write from
// several goroutines: every fsync must return durable, the data must be
// intact, and concurrent fsyncs may share commits (never need more).
func TestConcurrentFsync(t *testing.T) {
	im := newImage(t, 64<<20)
	fs := im.fs
	const workers, writes = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- concurrentWriter(fs, w, writes)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	st := fs.Stats()
	t.Logf("fsyncs %d, commits %d, grouped %d", st.Fsyncs, st.Commits, st.GroupedSyncs)
	if st.Fsyncs != workers*writes || st.Commits > st.Fsyncs+1 {
		t.Fatalf("fsyncs %d commits %d", st.Fsyncs, st.Commits)
	}
	im.remount()
	for w := range workers {
		a := must(im.fs.Lookup(RootIno, fmt.Sprintf("w%d", w))).ok(t)
		buf := make([]byte, writes*100+1)
		n := must(im.fs.Read(a.Ino, 0, buf)).ok(t)
		if !bytes.Equal(buf[:n], bytes.Repeat([]byte{byte('a' + w)}, writes*100)) {
			t.Fatalf("writer %d: %d bytes back", w, n)
		}
	}
}

func concurrentWriter(fs *FS, w, writes int) error {
	a, err := fs.Create(RootIno, fmt.Sprintf("w%d", w), 0o644, 0, 0)
	if err != nil {
		return err
	}
	chunk := bytes.Repeat([]byte{byte('a' + w)}, 100)
	for i := range writes {
		if _, err := fs.Write(a.Ino, int64(i*100), chunk); err != nil {
			return err
		}
		if err := fs.Fsync(a.Ino, false); err != nil {
			return err
		}
		if _, err := fs.ReadDir(RootIno); err != nil {
			return err
		}
	}
	return nil
}

// TestAttrChangeDuringCommit changes an inode's attributes while commits
// of other files are in flight (real-time clock, so they take a while):
// each change must survive, none may be lost when an in-flight commit
// that encoded an older version of the inode lands.
func TestAttrChangeDuringCommit(t *testing.T) {
	dev := newFormatted(t, 32<<20)
	im := mountImageVol(t, dev, realClock(Options{}), Options{})
	fs := im.fs
	a := must(fs.Create(RootIno, "attrs", 0o600, 0, 0)).ok(t)
	b := must(fs.Create(RootIno, "busy", 0o600, 0, 0)).ok(t)
	stop := make(chan struct{})
	done := make(chan error)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := fs.Write(b.Ino, int64(i%64)*4096, make([]byte, 4096)); err != nil {
				done <- err
				return
			}
			if err := fs.Fsync(b.Ino, false); err != nil {
				done <- err
				return
			}
		}
	}()
	const changes = 60
	for i := 1; i <= changes; i++ {
		must(fs.SetAttr(a.Ino, SetAttr{Mask: SetMode | SetSize, Mode: uint32(i), Size: uint64(i)})).ok(t)
		if i%4 == 0 {
			must(0, fs.Fsync(a.Ino, false)).ok(t)
			must(0, fs.Check()).ok(t)
		}
		time.Sleep(time.Duration(i%3) * time.Millisecond)
	}
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	im.remount()
	got := must(im.fs.GetAttr(a.Ino)).ok(t)
	if got.Mode&0o7777 != changes || got.Size != changes {
		t.Fatalf("after remount mode %o size %d, want %o and %d", got.Mode&0o7777, got.Size, changes, changes)
	}
}
