package logical

import (
	"flag"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
)

var syncRaceSeed = flag.Int64("vld.syncrace.seed", 0, "replay TestSyncRacesRelocate with this seed")

// TestSyncRacesRelocate runs asynchronous writes with Sync against the
// relocating compactor. Sync must not commit a map piece it encoded before
// a concurrent Relocate moved a block of that piece and freed the old copy:
// the stale piece would name a freed block, which a later write reuses.
// After the run the map must read back the last contents written, before
// and after a reopen, and Check must pass.
func TestSyncRacesRelocate(t *testing.T) {
	seed := testseed.Pick(t, *syncRaceSeed, "vld.syncrace.seed")
	d, dev := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	const span = 400
	ref := fillLogical(t, d, rand.New(rand.NewSource(seed)), 300, span)
	bs := d.BlockSize()

	var mu sync.Mutex // guards ref against the final comparison only
	stop := make(chan struct{})
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // writer: a few asynchronous writes, then Sync
		defer wg.Done()
		rng := rand.New(rand.NewSource(seed + 1))
		for i := 0; ; i++ {
			select {
			case <-stop:
				errs <- nil
				return
			default:
			}
			l := rng.Int63n(span)
			b := make([]byte, bs)
			rng.Read(b[:32])
			if err := d.Write(l, [][]byte{b}); err != nil {
				errs <- err
				return
			}
			mu.Lock()
			ref[l] = b
			mu.Unlock()
			if i%3 == 0 {
				if err := d.Sync(); err != nil {
					errs <- err
					return
				}
			}
		}
	}()
	go func() { // mover: relocate a few blocks of a random track at a time
		defer wg.Done()
		rng := rand.New(rand.NewSource(seed + 2))
		for {
			select {
			case <-stop:
				errs <- nil
				return
			default:
			}
			tr := rng.Intn(d.Volume().NumTracks())
			live, _, err := d.TrackLive(tr)
			if err != nil {
				errs <- err
				return
			}
			if len(live) > 4 {
				live = live[:4]
			}
			if _, err := d.Relocate(live, vld.HoleOpts{Avoid: tr}); err != nil {
				errs <- err
				return
			}
		}
	}()
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Check(); err != nil {
		t.Fatalf("Check: %v", err)
	}
	checkContents(t, d, ref)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := Open(keepOpen{dev}, vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, r, ref)
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestSyncHoldsMapThroughCommit pins the window deterministically: while
// Sync has encoded the dirty map pieces and not yet committed them, a
// Relocate of a block in one of those pieces is started. It must not run
// inside the window (it waits for Sync); afterwards the durable map, read
// from a copy of the device as a crash would leave it, must place the block
// where the in-memory map does.
func TestSyncHoldsMapThroughCommit(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	d, dev := newTestLogical(t, "st19101", 8<<20, vld.Options{})
	ref := fillLogical(t, d, rng, 200, 300)
	tr, live := busiestTrack(t, d)
	m := live[0]
	// Dirty the piece holding m's logical block without touching m.
	neighbour := m.Logical ^ 1
	b := make([]byte, d.BlockSize())
	b[0] = 0xAB
	if err := d.Write(neighbour, [][]byte{b}); err != nil {
		t.Fatal(err)
	}
	ref[neighbour] = b

	done := make(chan error, 1)
	inWindow := false
	d.afterEncode = func() {
		d.afterEncode = nil
		go func() {
			_, err := d.Relocate([]Movable{m}, vld.HoleOpts{Avoid: tr})
			done <- err
		}()
		select {
		case err := <-done:
			inWindow = true
			done <- err
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if inWindow {
		t.Errorf("Relocate completed between Sync's encoding and its commit")
	}
	img := append([]byte(nil), dev.Bytes()...)
	r, err := Open(device.MemFrom(img), vld.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d.mu.Lock()
	want := d.m[m.Logical]
	d.mu.Unlock()
	if got := r.m[m.Logical]; got != want {
		t.Fatalf("durable map puts logical %d at %d, memory at %d (moved from %d)", m.Logical, got, want, m.Addr)
	}
	checkContents(t, r, ref)
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
}
