package vlfs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlfs/vlfs/internal/testseed"
	"github.com/vlfs/vlfs/vld/device"
)

// slowDevice delays every device read and write by its own service time,
// as a real disk does (and --clock real sleeps it): it widens the windows
// in which a Read holds block addresses without FS.mu, or a batch of data
// is written without it (issue 31).
type slowDevice struct {
	device.Device
	read, write time.Duration
}

func (d slowDevice) ReadAt(p []byte, off int64) (int, error) {
	time.Sleep(d.read)
	return d.Device.ReadAt(p, off)
}

func (d slowDevice) WriteAt(p []byte, off int64) (int, error) {
	time.Sleep(d.write)
	return d.Device.WriteAt(p, off)
}

// gateBlock is block lbn of file f at version v: every 8 bytes say so.
func gateBlock(bs int, f byte, lbn, v uint32) []byte {
	b := make([]byte, bs)
	for i := 0; i+8 <= bs; i += 8 {
		binary.LittleEndian.PutUint32(b[i:], uint32(f)<<24|lbn)
		binary.LittleEndian.PutUint32(b[i+4:], v)
	}
	return b
}

// checkGateBlock says what is wrong with a block read from file f at lbn.
func checkGateBlock(b []byte, f byte, lbn uint32) error {
	want := uint32(f)<<24 | lbn
	v := binary.LittleEndian.Uint32(b[4:])
	for i := 0; i+8 <= len(b); i += 8 {
		if got := binary.LittleEndian.Uint32(b[i:]); got != want || binary.LittleEndian.Uint32(b[i+4:]) != v {
			return fmt.Errorf("byte %d: tag %#x version %d, want tag %#x version %d (another block's content: a reused block was read)",
				i, got, binary.LittleEndian.Uint32(b[i+4:]), want, v)
		}
	}
	return nil
}

// TestReadGateNoReuse: readers read file A's blocks without FS.mu while
// a writer rewrites them (each rewrite frees the old copy) and commits,
// and another writer churns file B so that freed blocks are reused at
// once on a nearly full image. A read must return a whole version of the
// block it asked for, never a block reused for something else: a freed
// block goes back to the volume only after the reads in flight are done.
func TestReadGateNoReuse(t *testing.T) {
	seed := testseed.Pick(t, *seedFlag, "vlfs.seed")
	im := mountImage(t, slowDevice{Device: newFormatted(t, 4<<20), read: 200 * time.Microsecond}, Options{Logf: t.Logf})
	fs := im.fs
	bs := fs.geo.bs
	const blocksA, blocksB = 48, 400
	a := must(fs.Create(RootIno, "a", 0o644, 0, 0)).ok(t).Ino
	b := must(fs.Create(RootIno, "b", 0o644, 0, 0)).ok(t).Ino
	for i := range uint32(blocksA) {
		must(fs.Write(a, int64(i)*int64(bs), gateBlock(bs, 'A', i, 0))).ok(t)
	}
	must(0, fs.Sync()).ok(t)
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
		stop.Store(true)
	}
	rounds := 300
	if testing.Short() {
		rounds = 100
	}
	wg.Add(2)
	go func() { // rewrites A's blocks, one commit each
		defer wg.Done()
		defer stop.Store(true)
		rng := rand.New(rand.NewSource(seed))
		// at least rounds rewrites, and on until the readers have read
		// as many blocks (bounded)
		for v := uint32(1); !stop.Load() && (v <= uint32(rounds) || reads.Load() < int64(rounds)) && v < uint32(200*rounds); v++ {
			i := uint32(rng.Intn(blocksA))
			if _, err := fs.Write(a, int64(i)*int64(bs), gateBlock(bs, 'A', i, v)); err != nil {
				report(fmt.Errorf("rewrite A[%d]: %w", i, err))
				return
			}
			if err := fs.Fsync(a, false); err != nil {
				report(err)
				return
			}
		}
	}()
	go func() { // churns B: fills freed blocks with B's content
		defer wg.Done()
		for v := uint32(1); !stop.Load(); v++ {
			for i := uint32(0); i < blocksB && !stop.Load(); i += 16 {
				_, err := fs.Write(b, int64(i)*int64(bs), gateBlock(bs, 'B', i, v))
				if err != nil && !errors.Is(err, ErrNoSpace) {
					report(fmt.Errorf("write B: %w", err))
					return
				}
			}
			if _, err := fs.SetAttr(b, SetAttr{Mask: SetSize, Size: 0}); err != nil {
				report(err)
				return
			}
			if err := fs.Fsync(b, false); err != nil && !errors.Is(err, ErrNoSpace) {
				report(err)
				return
			}
		}
	}()
	for r := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed + int64(r) + 1))
			buf := make([]byte, bs)
			for !stop.Load() {
				i := uint32(rng.Intn(blocksA))
				if _, err := fs.Read(a, int64(i)*int64(bs), buf); err != nil {
					report(fmt.Errorf("read A[%d]: %w", i, err))
					return
				}
				reads.Add(1)
				if err := checkGateBlock(buf, 'A', i); err != nil {
					report(fmt.Errorf("read A[%d]: %w", i, err))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d reads during %d rewrites; %d commits", reads.Load(), rounds, fs.Stats().Commits)
	if reads.Load() < int64(rounds) {
		t.Errorf("only %d reads ran alongside %d rewrites: the test did not exercise the gate", reads.Load(), rounds)
	}
}
