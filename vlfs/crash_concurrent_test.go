package vlfs

import (
	"bytes"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/vld/device"
)

// TestCrashConcurrentFsync: writers append records to their own files and
// fsync concurrently (so fsyncs share commits). In every crash state, each
// file must hold a prefix of what its writer wrote, at least as long as
// what an fsync acknowledged before the crash point.
func TestCrashConcurrentFsync(t *testing.T) {
	base := newFormatted(t, 8<<20)
	rec := device.NewCrash(base)
	// Real-time clock: the volume sleeps its simulated service times, so
	// fsyncs overlap and share commits.
	o := Options{FlushInterval: time.Hour}
	fs := must(MountWith(noClose{rec}, *realClock(o), o)).ok(t)
	const writers, records = 4, 12
	type ack struct{ flushes, length int }
	acks := make([][]ack, writers)
	inos := make([]Ino, writers)
	for w := range writers {
		inos[w] = must(fs.Create(RootIno, fmt.Sprintf("w%d", w), 0o644, 0, 0)).ok(t).Ino
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range records {
				if _, err := fs.Write(inos[w], int64(i*recordLen), record(w, i)); err != nil {
					errs <- err
					return
				}
				if err := fs.Fsync(inos[w], false); err != nil {
					errs <- err
					return
				}
				acks[w] = append(acks[w], ack{rec.Flushes(), (i + 1) * recordLen})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := fs.Stats()
	states := rec.States(rand.New(rand.NewSource(1)), 4)
	t.Logf("%d fsyncs, %d commits, %d crash states", st.Fsyncs, st.Commits, len(states))
	if st.Commits >= st.Fsyncs {
		t.Errorf("no fsync shared a commit (%d fsyncs, %d commits)", st.Fsyncs, st.Commits)
	}
	for _, s := range states {
		img := must(rec.Image(s)).ok(t)
		cfs, err := Mount(img, Options{FlushInterval: time.Hour})
		if err != nil {
			t.Fatalf("state %v: mount: %v", s, err)
		}
		if err := cfs.Check(); err != nil {
			t.Fatalf("state %v: check: %v", s, err)
		}
		for w := range writers {
			need := 0
			for _, a := range acks[w] {
				if a.flushes <= s.Flushes {
					need = max(need, a.length)
				}
			}
			got := readAllQuiet(cfs, fmt.Sprintf("w%d", w))
			if len(got) < need || !bytes.Equal(got, expected(w, records)[:len(got)]) {
				t.Fatalf("state %v: writer %d: %d bytes, acknowledged %d (or contents differ)", s, w, len(got), need)
			}
		}
		cfs.Close()
	}
	must(0, fs.Close()).ok(t)
}

const recordLen = 300

func record(w, i int) []byte {
	return bytes.Repeat([]byte{byte('A' + w), byte('0' + i%10)}, recordLen/2)
}

func expected(w, n int) []byte {
	var b []byte
	for i := range n {
		b = append(b, record(w, i)...)
	}
	return b
}

func readAllQuiet(fs *FS, name string) []byte {
	a, err := fs.Lookup(RootIno, name)
	if err != nil {
		return nil
	}
	buf := make([]byte, a.Size)
	n, _ := fs.Read(a.Ino, 0, buf)
	return buf[:n]
}
