package vlfstest

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"github.com/vlfs/vlfs/compactor"
	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/ondisk"
)

// TestConcurrentOpsAgainstModel runs several reference-model runs
// (fuzz_model.go) at once on one file system, each in a directory of its
// own, so that each run's answers are still defined while the operations
// of all of them interleave: writes and fallocates flying in unlocked
// batches, reads and lookups loading metadata without FS.mu, commits and
// syncs of the others in between. Then it remounts once and compares every
// run's tree; the final Check covers the whole image. The tiny-cache round
// evicts inodes, inode blocks and indirect blocks all the time, so that the
// unlocked loads race with the changes that invalidate them. The seed is
// printed and replays it (-vlfs.seed), up to the interleaving. In the
// compactor round the idle-time compactor runs steps back to back all the
// while, so that its moves (device work with FS.mu released, pointers
// changed under it) race with the runs' changes.
func TestConcurrentOpsAgainstModel(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	const workers = 4
	steps := 1500
	if testing.Short() {
		steps = 400
	}
	rounds := []struct {
		name    string
		setup   func(im *modelImage)
		compact bool
	}{
		{"defaults", func(*modelImage) {}, false},
		{"tiny caches", func(im *modelImage) {
			im.o.TinyCaches = true
			im.o.DirtyLimitBytes = 16 << 10
		}, false},
		{"write-through", func(im *modelImage) { im.o.WriteThroughBytes = 8 << 10 }, false},
		{"compactor", func(*modelImage) {}, true},
		// Buffered data goes out in unlocked batches on an in-place
		// volume too, each block over its home, a superseded one included.
		{"in place", func(im *modelImage) {
			im.dev = device.NewMem(64 << 20)
			if err := vlfs.Mkfs(im.dev, vlfs.MkfsOptions{Model: st19101(t), Placement: vld.PlaceInPlace}); err != nil {
				t.Fatal(err)
			}
			im.o.DirtyLimitBytes = 64 << 10
		}, false},
	}
	for ri, round := range rounds {
		im := &modelImage{dev: newFormatted(t, 64<<20), o: vlfs.Options{Logf: t.Logf}}
		round.setup(im)
		if err := im.mount(); err != nil {
			t.Fatal(err)
		}
		runs := make([]*modelRun, workers)
		for w := range runs {
			a, err := im.fs.Mkdir(vlfs.RootIno, fmt.Sprintf("w%d", w), 0o755, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			runs[w] = newModelRun(rand.New(rand.NewSource(seed+int64(ri*workers+w))), im)
			runs[w].rootIno, runs[w].shared = a.Ino, true
		}
		errs := make([]error, workers)
		done := make(chan struct{})
		var readers sync.WaitGroup
		for g := range 2 {
			readers.Add(1)
			go func() {
				defer readers.Done()
				browse(im.fs, runs, rand.New(rand.NewSource(seed+int64(1000+g))), done)
			}()
		}
		var compactErr error
		if round.compact {
			readers.Add(1)
			go func() {
				defer readers.Done()
				compactErr = compactAll(im.fs, done)
			}()
		}
		var wg sync.WaitGroup
		for w, r := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[w] = r.guard(func() {
					for range steps {
						r.step()
					}
				})
			}()
		}
		wg.Wait()
		close(done)
		readers.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("round %q, worker %d: %v", round.name, w, err)
			}
		}
		if compactErr != nil {
			t.Fatalf("round %q: compactor: %v", round.name, compactErr)
		}
		if round.name == "in place" && im.fs.Stats().UnlockedBatches == 0 {
			t.Fatalf("round %q: no batch written without the lock: the round tests nothing of its own", round.name)
		}
		if round.compact {
			moved := im.fs.MovedBlocks()
			t.Logf("round %q: the compactor moved %d blocks", round.name, moved)
			if moved == 0 {
				t.Fatalf("round %q: the compactor moved nothing: the round tests no move", round.name)
			}
		}
		// One remount for all, then each run's tree against its model.
		runs[0].shared = false
		if err := runs[0].guard(runs[0].remount); err != nil {
			t.Fatalf("round %q: remount: %v", round.name, err)
		}
		for w, r := range runs {
			if err := r.guard(r.compareTree); err != nil {
				t.Fatalf("round %q, worker %d after remount: %v", round.name, w, err)
			}
		}
		if err := im.close(); err != nil {
			t.Fatalf("round %q: %v", round.name, err)
		}
	}
}

// compactAll runs compactor steps back to back until done, as an idle
// mount's compactor would if every gap were idle: foreground waiting
// (vld.ErrBusy) and a volume without holes (vld.ErrNoSpace) only pause it.
func compactAll(fs *vlfs.FS, done <-chan struct{}) error {
	c, err := compactor.New(fs.CompactTarget(), compactor.Config{TargetEmpty: 1, StepBlocks: 4, SettleBlocks: 8})
	if err != nil {
		return err
	}
	for {
		select {
		case <-done:
			return nil
		default:
		}
		finished, err := c.Step()
		switch {
		case errors.Is(err, vld.ErrBusy), errors.Is(err, vld.ErrNoSpace):
			time.Sleep(time.Millisecond)
		case err != nil:
			return err
		case finished:
			time.Sleep(time.Millisecond)
		}
	}
}

// browse reads the runs' directories and files until done: readdir,
// lookup, getattr and read of whatever is there at that moment. Its
// answers race with the runs and are not checked; what it loads into the
// caches (without FS.mu, in the tiny-cache round over and over) is what
// the runs then see, so a stale directory, inode block or indirect block
// installed here shows as a disagreement with a run's model.
func browse(fs *vlfs.FS, runs []*modelRun, rng *rand.Rand, done <-chan struct{}) {
	buf := make([]byte, 64<<10)
	for {
		select {
		case <-done:
			return
		default:
		}
		dir := runs[rng.Intn(len(runs))].top()
		for depth := 0; depth < 3; depth++ {
			ents, err := fs.ReadDir(dir)
			if err != nil || len(ents) <= 2 {
				break
			}
			e := ents[2+rng.Intn(len(ents)-2)]
			a, err := fs.Lookup(dir, e.Name)
			if err != nil {
				break
			}
			fs.GetAttr(a.Ino)
			if a.Mode&ondisk.ModeType == ondisk.ModeReg {
				fs.Read(a.Ino, int64(rng.Intn(int(a.Size)+1)), buf[:1+rng.Intn(len(buf))])
			}
			fs.Forget(a.Ino, 1)
			if a.Mode&ondisk.ModeType != ondisk.ModeDir {
				break
			}
			dir = a.Ino
		}
	}
}
