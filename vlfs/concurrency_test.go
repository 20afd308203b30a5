package vlfs

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
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
