package device

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFlusherCoversEarlierWrites checks the flusher's promise with a fake
// sync: each caller "writes" (bumps a counter), then flushes; the fake sync
// makes durable whatever was written when it started. After Flush returns,
// the caller's write must be durable. It also checks that callers share.
func TestFlusherCoversEarlierWrites(t *testing.T) {
	var written, durable atomic.Int64
	var fl flusher
	fl.init(func() error {
		snap := written.Load()
		time.Sleep(2 * time.Millisecond) // let callers pile up
		for {
			d := durable.Load()
			if snap <= d || durable.CompareAndSwap(d, snap) {
				return nil
			}
		}
	})
	const callers = 32
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			<-start
			mine := written.Add(1)
			if err := fl.flush(); err != nil {
				errs <- err
				return
			}
			if d := durable.Load(); d < mine {
				errs <- fmt.Errorf("flush returned with write %d not durable (durable up to %d)", mine, d)
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := fl.count(); n >= callers {
		t.Errorf("%d syncs for %d concurrent callers: no sharing", n, callers)
	} else {
		t.Logf("%d syncs served %d concurrent flushes", n, callers)
	}
}

// TestFlusherStickyError: once a sync fails, that Flush and every later one
// fail, even though the fake sync would succeed again.
func TestFlusherStickyError(t *testing.T) {
	boom := errors.New("EIO")
	calls := 0
	var fl flusher
	fl.init(func() error {
		calls++
		if calls == 2 {
			return boom
		}
		return nil
	})
	want := []error{nil, boom, boom, boom}
	for i, w := range want {
		if err := fl.flush(); !errors.Is(err, w) && err != w {
			t.Fatalf("flush %d = %v, want %v", i, err, w)
		}
	}
	if calls != 2 {
		t.Fatalf("%d syncs after a sticky failure, want 2", calls)
	}
}

// TestFileConcurrentFlush hammers a real file with concurrent writes and
// flushes (run with -race) and checks the contents afterwards.
func TestFileConcurrentFlush(t *testing.T) {
	const workers, rounds, blk = 8, 20, 512
	d := openTemp(t, workers*rounds*blk, FileOptions{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				off := int64((w*rounds + r) * blk)
				if _, err := d.WriteAt(pattern(blk, byte(w+r)), off); err != nil {
					t.Error(err)
					return
				}
				if err := d.Flush(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for w := range workers {
		for r := range rounds {
			got := make([]byte, blk)
			if _, err := d.ReadAt(got, int64((w*rounds+r)*blk)); err != nil || string(got) != string(pattern(blk, byte(w+r))) {
				t.Fatalf("block %d/%d wrong after concurrent flushes (err %v)", w, r, err)
			}
		}
	}
	if s := d.Syncs(); s == 0 || s > workers*rounds {
		t.Fatalf("Syncs = %d for %d flushes", s, workers*rounds)
	}
	t.Logf("%d fdatasyncs for %d Flush calls", d.Syncs(), workers*rounds)
}

// TestCloseWaitsForFlush: Close during flushes neither races nor makes a
// flush use a closed descriptor; each flush either succeeds or sees ErrClosed.
func TestCloseWaitsForFlush(t *testing.T) {
	d := openTemp(t, 4096, FileOptions{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if err := d.Flush(); err != nil && !errors.Is(err, ErrClosed) {
					t.Error(err)
				}
			}
		})
	}
	time.Sleep(time.Millisecond)
	if err := d.Close(); err != nil {
		t.Error(err)
	}
	wg.Wait()
}

// TestDirectFlagIsSet reads the open flags back from /proc to prove that
// Direct really opened with O_DIRECT.
func TestDirectFlagIsSet(t *testing.T) {
	d := openTemp(t, 4096, FileOptions{Direct: true})
	info, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", d.f.Fd()))
	if err != nil {
		t.Skipf("no /proc fdinfo: %v", err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseInt(strings.TrimSpace(v), 8, 64)
			if err != nil || flags&unix.O_DIRECT == 0 {
				t.Fatalf("flags %q lack O_DIRECT (err %v)", v, err)
			}
			return
		}
	}
	t.Fatal("no flags line in fdinfo")
}
