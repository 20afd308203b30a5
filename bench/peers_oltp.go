package bench

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Filebench oltp.f parameters (bench/filebench/oltp.f); nshadows and
// filesize come from PeersSizes.
const (
	oltpIOSize    = 2 << 10   // data reads and writes
	oltpLogIOSize = 256 << 10 // log writes
	oltpDBWriters = 10
	oltpDataFiles = 10
	oltpUsermode  = 200000 // shadow hog iterations
	oltpDBWrHog   = 10000  // dbwr hog iterations
	oltpDBWrIters = 100    // writes per dbwr pass
	oltpDBWrBlock = 1000   // shadow reads per dbwr pass (semblock value)
	oltpDBWrHigh  = 2000   // highwater of the dbwr semaphore
	oltpLgBlock   = 3200   // shadow reads per log write
)

// credits is filebench's semaphore between the shadows and a writer:
// shadows post one per read, blocking above the highwater; the writer
// blocks until it can take `value`. Close wakes everyone for the end.
type credits struct {
	mu        sync.Mutex
	cond      *sync.Cond
	value     int
	highwater int
	closed    bool
}

func newCredits(highwater int) *credits {
	c := &credits{highwater: highwater}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// post adds one credit, waiting while the count is at the highwater; false
// once closed.
func (c *credits) post() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.value >= c.highwater && !c.closed {
		c.cond.Wait()
	}
	c.value++
	c.cond.Broadcast()
	return !c.closed
}

// take waits for n credits and takes them; false once closed.
func (c *credits) take(n int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.value < n && !c.closed {
		c.cond.Wait()
	}
	if c.closed {
		return false
	}
	c.value -= n
	c.cond.Broadcast()
	return true
}

func (c *credits) close() {
	c.mu.Lock()
	c.closed = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// hog burns CPU as filebench's hog flowop does.
func hog(n int) int {
	x := 0
	for i := range n {
		x += i ^ (x >> 3)
	}
	return x
}

// oltpFiles are the open data and log files.
type oltpFiles struct {
	data, dataSync []*os.File // read handles; O_DSYNC write handles
	log            *os.File   // O_DSYNC
	size, logSize  int64
}

// runOLTP is filebench's oltp personality for a fixed time: shadows read
// 2 KiB at random from ten data files and post to two semaphores; ten
// database writers write 100 x 2 KiB O_DSYNC per 1,000 shadow reads; one
// log writer writes 256 KiB O_DSYNC per 3,200. Operations are the reads
// and writes (not the hogs). filebench's log semaphore has a highwater
// (1,000) below the value the log writer waits for (3,200); here the
// highwater is raised to 3,200 so that it cannot deadlock.
func runOLTP(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	files, err := openOLTP(dir, cfg.Sizes.OLTPFileSize)
	if err != nil {
		return nil, err
	}
	defer files.close()
	cfg.Logf("peers: %s: oltp for %v", t.name(), cfg.Sizes.Duration)
	r, err := measured(t, func() (peerResult, error) {
		return oltpRun(files, cfg.Sizes.Duration, cfg.Sizes.OLTPShadows, oltpDBWriters)
	})
	return []peerResult{r}, err
}

func openOLTP(dir string, size int64) (*oltpFiles, error) {
	f := &oltpFiles{size: size, logSize: size}
	rng := rand.New(rand.NewSource(2))
	open := func(name string, n int64) (*os.File, *os.File, error) {
		p := filepath.Join(dir, name)
		if err := writeNew(p, n, rng); err != nil {
			return nil, nil, err
		}
		r, err := os.Open(p)
		if err != nil {
			return nil, nil, err
		}
		w, err := os.OpenFile(p, os.O_RDWR|unix.O_DSYNC, 0)
		if err != nil {
			r.Close()
			return nil, nil, err
		}
		return r, w, nil
	}
	for i := range oltpDataFiles {
		r, w, err := open(fmt.Sprintf("data%02d", i), size)
		if err != nil {
			f.close()
			return nil, err
		}
		f.data, f.dataSync = append(f.data, r), append(f.dataSync, w)
	}
	r, w, err := open("log", size)
	if err != nil {
		f.close()
		return nil, err
	}
	r.Close()
	f.log = w
	return f, nil
}

func (f *oltpFiles) close() {
	for _, x := range append(append(f.data, f.dataSync...), f.log) {
		if x != nil {
			x.Close()
		}
	}
}

// oltpRun runs the three kinds of thread until the duration has passed.
func oltpRun(f *oltpFiles, d time.Duration, shadows, writers int) (peerResult, error) {
	var lat latencies
	var bytes atomic.Int64
	lg, dbw := newCredits(oltpLgBlock), newCredits(oltpDBWrHigh)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var errs []error
	fail := func(err error) {
		errMu.Lock()
		errs = append(errs, err)
		errMu.Unlock()
	}
	start := time.Now()
	deadline := start.Add(d)
	spawn := func(n int, seed int64, body func(rng *rand.Rand) error) {
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewSource(seed + int64(i)))
				for time.Now().Before(deadline) {
					if err := body(rng); err != nil {
						if !errors.Is(err, errClosed) {
							fail(err)
						}
						return
					}
				}
			}()
		}
	}
	spawn(shadows, 1000, func(rng *rand.Rand) error { return oltpShadow(f, rng, &lat, &bytes, lg, dbw) })
	spawn(writers, 2000, func(rng *rand.Rand) error { return oltpDBWriter(f, rng, &lat, &bytes, dbw) })
	spawn(1, 3000, func(rng *rand.Rand) error { return oltpLogWriter(f, rng, &lat, &bytes, lg) })
	time.Sleep(time.Until(deadline))
	lg.close()
	dbw.close()
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return peerResult{}, fmt.Errorf("oltp: %w", err)
	}
	return lat.result("oltp", bytes.Load(), elapsed), nil
}

// errClosed ends a thread blocked on a semaphore at the end of the run.
var errClosed = errors.New("oltp: run over")

func oltpShadow(f *oltpFiles, rng *rand.Rand, lat *latencies, bytes *atomic.Int64, lg, dbw *credits) error {
	buf := make([]byte, oltpIOSize)
	start := time.Now()
	if _, err := f.data[rng.Intn(len(f.data))].ReadAt(buf, randBlock(rng, f.size, oltpIOSize)); err != nil {
		return err
	}
	lat.add(start)
	bytes.Add(oltpIOSize)
	hog(oltpUsermode)
	if !lg.post() || !dbw.post() {
		return errClosed
	}
	return nil
}

func oltpDBWriter(f *oltpFiles, rng *rand.Rand, lat *latencies, bytes *atomic.Int64, dbw *credits) error {
	buf := make([]byte, oltpIOSize)
	rng.Read(buf)
	for range oltpDBWrIters {
		start := time.Now()
		if _, err := f.dataSync[rng.Intn(len(f.dataSync))].WriteAt(buf, randBlock(rng, f.size, oltpIOSize)); err != nil {
			return err
		}
		lat.add(start)
		bytes.Add(oltpIOSize)
	}
	hog(oltpDBWrHog)
	if !dbw.take(oltpDBWrBlock) {
		return errClosed
	}
	return nil
}

func oltpLogWriter(f *oltpFiles, rng *rand.Rand, lat *latencies, bytes *atomic.Int64, lg *credits) error {
	buf := make([]byte, oltpLogIOSize)
	rng.Read(buf)
	start := time.Now()
	if _, err := f.log.WriteAt(buf, randBlock(rng, f.logSize, oltpLogIOSize)); err != nil {
		return err
	}
	lat.add(start)
	bytes.Add(oltpLogIOSize)
	if !lg.take(oltpLgBlock) {
		return errClosed
	}
	return nil
}

// randBlock is a random io-aligned offset of an io-sized piece of a file.
func randBlock(rng *rand.Rand, size, io int64) int64 {
	n := size / io
	if n <= 1 {
		return 0
	}
	return rng.Int63n(n) * io
}
