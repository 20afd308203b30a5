package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vlfs"
)

// MountBatchConfig configures MountBatch: Carson and Setia's read-priority
// write batching measured through a FUSE mount on the real-time clock,
// with readers and writers as real threads. Zero values pick the
// defaults (the issue-31 experiment: st19101, a 1 GiB image, a 64 MiB
// file read at random, writers appending 64 KiB and fsyncing every
// 4 MiB, 10 s a point).
type MountBatchConfig struct {
	Model      *disk.Model   // default st19101
	ImageBytes int64         // default 1 GiB
	FileBytes  int64         // the file the reader reads; default 64 MiB
	Writers    []int         // the loads: writer threads per point; default 1, 2, 4
	Modes      []string      // scheduler modes (LiveModes); default cstar, segment, fifo
	Duration   time.Duration // per point; default 10 s
	WriteBytes int           // each writer's write size; default 64 KiB
	FsyncBytes int64         // a writer fsyncs every this many bytes; default 4 MiB
	Dir        string        // where the image goes; default the system's temporary directory
	Seed       int64
	ProfileDir string // if set, mutex and block profiles of the whole run are written there
	Progress   io.Writer
	Logf       func(format string, args ...any)
}

// QuickMountBatchConfig is a smoke run: 2 s a point, one and two writers.
func QuickMountBatchConfig() MountBatchConfig {
	return MountBatchConfig{Duration: 2 * time.Second, Writers: []int{1, 2}, FileBytes: 16 << 20}
}

func (c *MountBatchConfig) defaults() error {
	if c.Model == nil {
		m, err := disk.Preset("st19101")
		if err != nil {
			return err
		}
		c.Model = m
	}
	def := func(p *int64, v int64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.ImageBytes, 1<<30)
	def(&c.FileBytes, 64<<20)
	def(&c.FsyncBytes, 4<<20)
	if c.WriteBytes == 0 {
		c.WriteBytes = 64 << 10
	}
	if c.Duration == 0 {
		c.Duration = 10 * time.Second
	}
	if c.Writers == nil {
		c.Writers = []int{1, 2, 4}
	}
	if c.Modes == nil {
		c.Modes = []string{ModeCStar, ModeSegment, ModeFIFO}
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	switch {
	case c.ImageBytes < 4*c.FileBytes || c.FileBytes < 4096:
		return fmt.Errorf("%w: the image (%d bytes) must hold 4 times the read file (%d bytes, at least 4096)", ErrBadConfig, c.ImageBytes, c.FileBytes)
	case c.WriteBytes <= 0 || c.FsyncBytes <= 0 || c.Duration <= 0:
		return fmt.Errorf("%w: write size, fsync interval and duration must be positive", ErrBadConfig)
	}
	for _, w := range c.Writers {
		if w < 0 {
			return fmt.Errorf("%w: writer threads must be >= 0, got %d", ErrBadConfig, w)
		}
	}
	for _, m := range c.Modes {
		if _, err := modeBatch(m); err != nil {
			return fmt.Errorf("%w: %w", ErrBadConfig, err)
		}
	}
	return nil
}

// MountBatch runs the experiment: the image is made and its read file
// written on the virtual clock; then, for each mode, the image is served
// by vlfs/fusefs in this process on the real-time clock (every device
// request sleeps its modelled service time) with that batching policy,
// and for each load one thread reads random 4 KiB blocks of the file
// with O_DIRECT while the writer threads append to files of their own.
// Times are wall-clock.
func MountBatch(cfg MountBatchConfig) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp(cfg.Dir, "vlfs-bench-mountbatch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	t := &vlfsTarget{base: base, img: filepath.Join(base, "vlfs.img"), mnt: filepath.Join(base, "mnt")}
	if err := mkfsVLFS(PeersConfig{Model: cfg.Model, Sizes: PeersSizes{ImageBytes: cfg.ImageBytes}, SparseImages: true}, t.img); err != nil {
		return nil, err
	}
	if err := os.Mkdir(t.mnt, 0o755); err != nil {
		return nil, err
	}
	if err := fillReadFile(t.img, cfg.FileBytes); err != nil {
		return nil, err
	}
	if cfg.ProfileDir != "" {
		defer writeContentionProfiles(cfg.ProfileDir, cfg.Logf)()
	}
	rep := newMountBatchReport(&cfg)
	prog := NewProgress(cfg.Progress, "bench mountbatch", len(cfg.Modes)*len(cfg.Writers))
	defer prog.Done()
	means := map[int]map[string]float64{}
	for _, mode := range cfg.Modes {
		b, _ := modeBatch(mode)
		if err := t.mount(vlfs.Options{Logf: cfg.Logf, Clock: vld.ClockReal, Batch: b.String(), WriteThroughBytes: vlfs.DefaultWriteThrough}); err != nil {
			return nil, fmt.Errorf("bench mountbatch: mounting with %s: %w", mode, err)
		}
		for _, w := range cfg.Writers {
			row, err := mountBatchPoint(&cfg, t, mode, w)
			if err != nil {
				t.unmount()
				return nil, fmt.Errorf("bench mountbatch: %s, %d writers: %w", mode, w, err)
			}
			rep.Rows = append(rep.Rows, row)
			if m, ok := row["read_mean_ms"].(float64); ok {
				if means[w] == nil {
					means[w] = map[string]float64{}
				}
				means[w][mode] = m
			}
			prog.Step(fmt.Sprintf("%s, %d writers", mode, w))
		}
		if err := t.unmount(); err != nil {
			return nil, fmt.Errorf("bench mountbatch: unmounting after %s: %w", mode, err)
		}
		if err := checkImage(t.img); err != nil {
			return nil, fmt.Errorf("bench mountbatch: after %s: %w", mode, err)
		}
	}
	for _, w := range cfg.Writers {
		if c, ok := means[w][ModeCStar]; ok {
			rep.Notes = append(rep.Notes, liveNote(BatchLoad{Name: fmt.Sprintf("%d writers", w)}, c, means[w]))
		}
	}
	return rep, nil
}

func newMountBatchReport(cfg *MountBatchConfig) *Report {
	dp := cfg.Model.Params()
	return &Report{
		Bench: "mountbatch", Disk: dp, Clock: ClockWall,
		Params: map[string]any{
			"image_bytes": cfg.ImageBytes, "file_bytes": cfg.FileBytes, "duration_s": cfg.Duration.Seconds(),
			"write_bytes": cfg.WriteBytes, "fsync_bytes": cfg.FsyncBytes, "seed": cfg.Seed,
		},
		Columns: []string{"mode", "writers", "batch_blocks", "reads", "read_mean_ms", "read_p50_ms", "read_p99_ms",
			"write_mb_s", "fsyncs", "fsync_mean_ms", "dev_reads", "unlocked_batches"},
		Notes: []string{
			"through a FUSE mount served in this process on the real-time clock: every device request sleeps the disk model's service time, so the scheduler sees the mount's real queue",
			"one thread reads random 4 KiB blocks of the read file with O_DIRECT (read_* are its wall-clock response times); each writer appends write_bytes writes to a file of its own and fsyncs every fsync_bytes; write_mb_s counts bytes whose fsync returned within the point",
			"dev_reads: device read requests during the point (reads the file system's caches answered do not reach the disk); unlocked_batches: batches of file data written with the file system's lock released",
		},
	}
}

// fillReadFile writes the read file (random bytes, committed) on the
// virtual clock, so that making it costs no wall time.
func fillReadFile(img string, size int64) error {
	t := &vlfsTarget{img: img}
	fs, err := t.open(vlfs.Options{})
	if err != nil {
		return err
	}
	a, err := fs.Create(vlfs.RootIno, "data", 0o644, 0, 0)
	if err == nil {
		buf := make([]byte, 1<<20)
		rng := rand.New(rand.NewSource(1))
		for off := int64(0); off < size && err == nil; off += int64(len(buf)) {
			rng.Read(buf)
			_, err = fs.Write(a.Ino, off, buf[:min(int64(len(buf)), size-off)])
		}
	}
	if err == nil {
		err = fs.Fsync(a.Ino, false)
	}
	return errors.Join(err, fs.Close())
}

// checkImage runs the file system's check on the unmounted image.
func checkImage(img string) error {
	t := &vlfsTarget{img: img}
	fs, err := t.open(vlfs.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	return errors.Join(fs.Check(), fs.Close())
}

// mountBatchPoint runs one mode and load on the mounted image.
func mountBatchPoint(cfg *MountBatchConfig, t *vlfsTarget, mode string, writers int) (map[string]any, error) {
	st0 := t.fs.Stats()
	stop := time.Now().Add(cfg.Duration)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	fail := func(err error) {
		mu.Lock()
		firstErr = errors.Join(firstErr, err)
		mu.Unlock()
	}
	var reads []float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		reads, err = randomDirectReads(filepath.Join(t.mnt, "data"), cfg.FileBytes, stop, cfg.Seed)
		if err != nil {
			fail(err)
		}
	}()
	var durable int64
	var fsyncs []float64
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, fs, err := appendAndFsync(filepath.Join(t.mnt, fmt.Sprintf("w%d", i)), cfg.WriteBytes, cfg.FsyncBytes, stop)
			mu.Lock()
			durable += n
			fsyncs = append(fsyncs, fs...)
			mu.Unlock()
			if err != nil {
				fail(err)
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	st1 := t.fs.Stats()
	row := map[string]any{
		"mode": mode, "writers": writers, "batch_blocks": st1.Vol.BatchBlocks, "reads": len(reads),
		"write_mb_s": float64(durable) / cfg.Duration.Seconds() / 1e6, "fsyncs": len(fsyncs),
		"dev_reads": st1.Vol.Reads - st0.Vol.Reads, "unlocked_batches": st1.UnlockedBatches - st0.UnlockedBatches,
	}
	if len(reads) > 0 {
		row["read_mean_ms"] = meanOf(reads)
		row["read_p50_ms"] = percentile(reads, 0.5)
		row["read_p99_ms"] = percentile(reads, 0.99)
	}
	if len(fsyncs) > 0 {
		row["fsync_mean_ms"] = meanOf(fsyncs)
	}
	// The writers' files go, so that every point starts from the same
	// space; the removal is committed before the next point.
	for i := 0; i < writers; i++ {
		if err := os.Remove(filepath.Join(t.mnt, fmt.Sprintf("w%d", i))); err != nil {
			return nil, err
		}
	}
	return row, syncDir(t.mnt)
}

// writeContentionProfiles turns on mutex and block profiling; the
// function it returns writes mutex.pprof and block.pprof into dir and
// turns them off.
func writeContentionProfiles(dir string, logf func(string, ...any)) func() {
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(int(time.Microsecond))
	return func() {
		for _, name := range []string{"mutex", "block"} {
			f, err := os.Create(filepath.Join(dir, name+".pprof"))
			if err == nil {
				err = errors.Join(pprof.Lookup(name).WriteTo(f, 0), f.Close())
			}
			if err != nil {
				logf("bench mountbatch: writing the %s profile: %v", name, err)
			}
		}
		runtime.SetMutexProfileFraction(0)
		runtime.SetBlockProfileRate(0)
	}
}

func meanOf(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}

// randomDirectReads reads random 4 KiB blocks of the first size bytes of
// path with O_DIRECT until stop, and returns each read's time in ms.
func randomDirectReads(path string, size int64, stop time.Time, seed int64) ([]float64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := alignedBlock(4096)
	rng := rand.New(rand.NewSource(seed))
	var ms []float64
	for time.Now().Before(stop) {
		off := rng.Int63n(size/4096) * 4096
		t0 := time.Now()
		if n, err := f.ReadAt(buf, off); err != nil || n != len(buf) {
			return ms, fmt.Errorf("direct read at %d: %d bytes, %v", off, n, err)
		}
		ms = append(ms, float64(time.Since(t0))/1e6)
	}
	return ms, nil
}

// alignedBlock is an n-byte buffer at an address that is a multiple of
// 4096, as O_DIRECT wants.
func alignedBlock(n int) []byte {
	b := make([]byte, n+4096)
	skip := (4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)) % 4096
	return b[skip : skip+n]
}

// appendAndFsync appends writes of size n to a new file at path, fsyncing
// every every bytes, until stop. It returns the bytes made durable by
// fsyncs that returned before stop and each fsync's time in ms.
func appendAndFsync(path string, n int, every int64, stop time.Time) (int64, []float64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	rand.New(rand.NewSource(int64(len(path)))).Read(buf)
	var written, durable int64
	var ms []float64
	for time.Now().Before(stop) {
		if _, err := f.Write(buf); err != nil {
			return durable, ms, err
		}
		written += int64(n)
		if written%every < int64(n) {
			t0 := time.Now()
			if err := f.Sync(); err != nil {
				return durable, ms, err
			}
			ms = append(ms, float64(time.Since(t0))/1e6)
			if time.Now().Before(stop) {
				durable = written
			}
		}
	}
	return durable, ms, nil
}
