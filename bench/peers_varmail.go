package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// Filebench varmail.f parameters (bench/filebench/varmail.f); nfiles comes
// from PeersSizes.VarmailFiles.
const (
	varmailThreads    = 16
	varmailMeanSize   = 16 << 10 // meanfilesize, gamma-distributed (shape 1.5)
	varmailAppendSize = 16 << 10 // meanappendsize: appends of 1..16 KiB
	varmailIOSize     = 1 << 20  // readwholefile buffer
	varmailPrealloc   = 0.8      // share of files that exist at the start
)

// fileState is a fileset entry's state.
type fileState uint8

const (
	fileAbsent fileState = iota
	fileExists
	fileBusy // in use by one thread
)

// fileset is filebench's fileset: named files that exist or not, each used
// by one thread at a time.
type fileset struct {
	mu    sync.Mutex
	dir   string
	state []fileState
	bufs  sync.Pool // *[]byte of varmailIOSize, for readwholefile
}

// pick marks busy and returns a random file in state want, or -1 (tries a
// bounded number of times, as filebench does, then gives up the op).
func (fs *fileset) pick(rng *rand.Rand, want fileState) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for range 64 {
		i := rng.Intn(len(fs.state))
		if fs.state[i] == want {
			fs.state[i] = fileBusy
			return i
		}
	}
	return -1
}

func (fs *fileset) set(i int, s fileState) {
	fs.mu.Lock()
	fs.state[i] = s
	fs.mu.Unlock()
}

func (fs *fileset) path(i int) string { return filepath.Join(fs.dir, fmt.Sprintf("f%07d", i)) }

// gammaSize draws a file size with filebench's gamma distribution (mean m,
// shape k), by Marsaglia and Tsang's method.
func gammaSize(rng *rand.Rand, m float64, k float64) int64 {
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return max(1, int64(d*v*m/k))
		}
	}
}

// runVarmail is filebench's varmail personality for a fixed time: 16
// threads loop over delete; create, append, fsync, close; open, read
// whole, append, fsync, close; open, read whole, close. Every flowop is
// one operation, as filebench counts them.
func runVarmail(cfg PeersConfig, t peerTarget, dir string) ([]peerResult, error) {
	r, err := varmailThreadsRun(cfg, t, dir, varmailThreads)
	return []peerResult{r}, err
}

// varmailThreadsRun is varmail with n threads.
func varmailThreadsRun(cfg PeersConfig, t peerTarget, dir string, n int) (peerResult, error) {
	fs := &fileset{dir: dir, state: make([]fileState, cfg.Sizes.VarmailFiles)}
	fs.bufs.New = func() any { b := make([]byte, varmailIOSize); return &b }
	rng := rand.New(rand.NewSource(1))
	for i := range fs.state {
		if rng.Float64() < varmailPrealloc {
			if err := writeNew(fs.path(i), gammaSize(rng, varmailMeanSize, 1.5), rng); err != nil {
				return peerResult{}, err
			}
			fs.state[i] = fileExists
		}
	}
	cfg.Logf("peers: %s: varmail, %d threads, for %v", t.name(), n, cfg.Sizes.Duration)
	return measured(t, func() (peerResult, error) {
		return runFlows(cfg.Sizes.Duration, n, "varmail", func(rng *rand.Rand, lat *latencies, bytes *atomic.Int64) error {
			return varmailFlow(fs, rng, lat, bytes)
		})
	})
}

// runFlows runs flow in n goroutines until d has passed.
func runFlows(d time.Duration, n int, name string, flow func(*rand.Rand, *latencies, *atomic.Int64) error) (peerResult, error) {
	var lat latencies
	var bytes atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	deadline := start.Add(d)
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(g) + 100))
			for time.Now().Before(deadline) {
				if err := flow(rng, &lat, &bytes); err != nil {
					errs[g] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return peerResult{}, fmt.Errorf("%s: %w", name, err)
	}
	return lat.result(name, bytes.Load(), elapsed), nil
}

// varmailFlow is one pass of the varmail thread's flowops.
func varmailFlow(fs *fileset, rng *rand.Rand, lat *latencies, bytes *atomic.Int64) error {
	if i := fs.pick(rng, fileExists); i >= 0 { // deletefile1
		start := time.Now()
		if err := os.Remove(fs.path(i)); err != nil {
			return err
		}
		lat.add(start)
		fs.set(i, fileAbsent)
	}
	if i := fs.pick(rng, fileAbsent); i >= 0 { // createfile2, append, fsync, close
		start := time.Now()
		f, err := os.OpenFile(fs.path(i), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o644)
		if err != nil {
			return err
		}
		lat.add(start)
		err = appendSync(f, rng, lat, bytes)
		fs.set(i, fileExists)
		if err != nil {
			return err
		}
	}
	if err := openReadAppend(fs, rng, lat, bytes, true); err != nil { // openfile3 ... closefile3
		return err
	}
	return openReadAppend(fs, rng, lat, bytes, false) // openfile4, readfile4, closefile4
}

// openReadAppend opens an existing file, reads it whole, appends and
// fsyncs if appendToo, and closes it.
func openReadAppend(fs *fileset, rng *rand.Rand, lat *latencies, bytes *atomic.Int64, appendToo bool) error {
	i := fs.pick(rng, fileExists)
	if i < 0 {
		return nil
	}
	defer fs.set(i, fileExists)
	start := time.Now()
	f, err := os.OpenFile(fs.path(i), os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	lat.add(start)
	start = time.Now()
	buf := fs.bufs.Get().(*[]byte)
	n, err := readWhole(f, *buf)
	fs.bufs.Put(buf)
	if err != nil {
		f.Close()
		return err
	}
	lat.add(start)
	bytes.Add(n)
	if appendToo {
		return appendSync(f, rng, lat, bytes)
	}
	start = time.Now()
	if err := f.Close(); err != nil {
		return err
	}
	lat.add(start)
	return nil
}

// appendSync appends 1..meanappendsize random bytes, fsyncs and closes f:
// three operations.
func appendSync(f *os.File, rng *rand.Rand, lat *latencies, bytes *atomic.Int64) error {
	buf := make([]byte, 1+rng.Intn(varmailAppendSize))
	rng.Read(buf)
	start := time.Now()
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	lat.add(start)
	bytes.Add(int64(len(buf)))
	start = time.Now()
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	lat.add(start)
	start = time.Now()
	if err := f.Close(); err != nil {
		return err
	}
	lat.add(start)
	return nil
}

// readWhole reads f from the start in len(buf) pieces.
func readWhole(f *os.File, buf []byte) (int64, error) {
	var n int64
	for off := int64(0); ; {
		k, err := f.ReadAt(buf, off)
		n += int64(k)
		off += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// writeNew creates a file of size random bytes (filebench's preallocation;
// not timed).
func writeNew(path string, size int64, rng *rand.Rand) error {
	buf := make([]byte, size)
	rng.Read(buf)
	return os.WriteFile(path, buf, 0o644)
}
