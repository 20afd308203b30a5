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
// defaults: st19101, a 1 GiB image, a 64 MiB file read at random, the
// paper's loads A-D and two streaming writers, 10 s a point.
type MountBatchConfig struct {
	Model      *disk.Model   // default st19101
	ImageBytes int64         // default 1 GiB
	FileBytes  int64         // the file the readers read; default 64 MiB
	Loads      []MountLoad   // default MountLoads()
	Modes      []string      // scheduler modes (LiveModes); default cstar, segment, fifo
	Duration   time.Duration // per point; default 20 s
	PeriodMs   float64       // open loads: the writer fsyncs every period (the paper: 30 s); default 5000
	WriteBytes int           // streaming writers' write size; default 64 KiB
	FsyncBytes int64         // a streaming writer fsyncs every this many bytes; default 4 MiB
	Dir        string        // where the image goes; default the system's temporary directory
	Seed       int64
	ProfileDir string // if set, mutex and block profiles of the whole run are written there
	Progress   io.Writer
	Logf       func(format string, args ...any)
}

// MountLoad is one load of the mount experiment. An open load is the
// paper's: Poisson reads and writes of single blocks at utilisations
// RhoR and RhoW (lambda (D + k), D + k the disk's mean one-block service
// time), each read a thread of its own, the writes appended by one thread
// that fsyncs every PeriodMs (the paper's update interval). A streaming
// load (Writers > 0) is closed: one thread reads back to back while
// Writers threads append WriteBytes and fsync every FsyncBytes, as fast
// as the mount lets them.
//
// An in-place load (InPlace) is an open load in the paper's own setting:
// the image places blocks in place (a conventional file system), and the
// writer overwrites random blocks of a file as large as the read file
// instead of appending. Each block written out then costs a positioning,
// as the model's writes do, where eager placement (the other loads) lays
// a period's appends out in a few runs near the head.
type MountLoad struct {
	Name       string
	RhoR, RhoW float64
	Writers    int
	InPlace    bool
}

// inPlaceSuffix names the in-place variant of a paper's load ("A-ip").
const inPlaceSuffix = "-ip"

// MountLoads are the paper's loads A-D, a streaming load of two writers,
// and the paper's loads again in place (A-ip .. D-ip).
func MountLoads() []MountLoad {
	var ls, ip []MountLoad
	for _, l := range BatchLoads() {
		ls = append(ls, MountLoad{Name: l.Name, RhoR: l.RhoR, RhoW: l.RhoW})
		ip = append(ip, MountLoad{Name: l.Name + inPlaceSuffix, RhoR: l.RhoR, RhoW: l.RhoW, InPlace: true})
	}
	return append(append(ls, MountLoad{Name: "S2", Writers: 2}), ip...)
}

// QuickMountBatchConfig is a smoke run: 2 s a point, loads A, S2 and
// A-ip.
func QuickMountBatchConfig() MountBatchConfig {
	var quick []MountLoad
	for _, l := range MountLoads() {
		if l.Name == "A" || l.Name == "S2" || l.Name == "A"+inPlaceSuffix {
			quick = append(quick, l)
		}
	}
	return MountBatchConfig{Duration: 2 * time.Second, Loads: quick, FileBytes: 16 << 20}
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
		c.Duration = 20 * time.Second
	}
	if c.Loads == nil {
		c.Loads = MountLoads()
	}
	if c.PeriodMs == 0 {
		c.PeriodMs = 5000
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
	case c.WriteBytes <= 0 || c.FsyncBytes <= 0 || c.Duration <= 0 || !(c.PeriodMs > 0):
		return fmt.Errorf("%w: write size, fsync interval, period and duration must be positive", ErrBadConfig)
	}
	for _, l := range c.Loads {
		if l.Writers < 0 || !(l.RhoR >= 0) || !(l.RhoW >= 0) || l.RhoR > 1 || l.RhoW > 1 {
			return fmt.Errorf("%w: load %s: utilisations in [0, 1] and writers >= 0, got %v, %v, %d", ErrBadConfig, l.Name, l.RhoR, l.RhoW, l.Writers)
		}
		if l.InPlace && l.Writers > 0 {
			return fmt.Errorf("%w: load %s: an in-place load is open (no streaming writers)", ErrBadConfig, l.Name)
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
// In-place loads run the same way on a second image that places in place,
// whose writer overwrites a file of its own written beforehand.
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
	in, err := disk.CStarFor(cfg.Model, 4096)
	if err != nil {
		return nil, err
	}
	if cfg.ProfileDir != "" {
		defer writeContentionProfiles(cfg.ProfileDir, cfg.Logf)()
	}
	rep := newMountBatchReport(&cfg, in)
	prog := NewProgress(cfg.Progress, "bench mountbatch", len(cfg.Modes)*len(cfg.Loads))
	defer prog.Done()
	means := map[string]map[string]float64{}
	for _, g := range []struct {
		placement vld.Placement
		inPlace   bool
	}{{vld.PlaceEager, false}, {vld.PlaceInPlace, true}} {
		var loads []MountLoad
		for _, l := range cfg.Loads {
			if l.InPlace == g.inPlace {
				loads = append(loads, l)
			}
		}
		if len(loads) == 0 {
			continue
		}
		dir := filepath.Join(base, g.placement.String())
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, err
		}
		t := &vlfsTarget{base: dir, img: filepath.Join(dir, "vlfs.img"), mnt: filepath.Join(dir, "mnt")}
		if err := mountBatchImage(&cfg, t, g.placement, g.inPlace); err != nil {
			return nil, err
		}
		for _, mode := range cfg.Modes {
			b, _ := modeBatch(mode)
			o := vlfs.Options{Logf: cfg.Logf, WriteThroughBytes: vlfs.DefaultWriteThrough}
			vo := vlfs.VolumeOptions(o)
			vo.Clock, vo.Batch, vo.BatchInPlace = vld.ClockReal, b, true
			if err := t.mount(vo, o); err != nil {
				return nil, fmt.Errorf("bench mountbatch: mounting with %s: %w", mode, err)
			}
			for _, l := range loads {
				row, err := mountBatchPoint(&cfg, t, mode, l, in.DMs+in.KMs)
				if err != nil {
					t.unmount()
					return nil, fmt.Errorf("bench mountbatch: %s, load %s: %w", mode, l.Name, err)
				}
				row["placement"] = g.placement.String()
				rep.Rows = append(rep.Rows, row)
				if m, ok := row["read_mean_ms"].(float64); ok {
					if means[l.Name] == nil {
						means[l.Name] = map[string]float64{}
					}
					means[l.Name][mode] = m
				}
				prog.Step(fmt.Sprintf("%s, load %s", mode, l.Name))
			}
			if err := t.unmount(); err != nil {
				return nil, fmt.Errorf("bench mountbatch: unmounting after %s: %w", mode, err)
			}
			if err := checkImage(t.img); err != nil {
				return nil, fmt.Errorf("bench mountbatch: after %s: %w", mode, err)
			}
		}
	}
	for _, l := range cfg.Loads {
		if c, ok := means[l.Name][ModeCStar]; ok {
			rep.Notes = append(rep.Notes, liveNote(BatchLoad{Name: l.Name}, c, means[l.Name]))
		}
	}
	return rep, nil
}

// mountBatchImage makes t's image with the given placement and writes its
// read file (and, for in-place loads, the file their writer overwrites).
func mountBatchImage(cfg *MountBatchConfig, t *vlfsTarget, p vld.Placement, updates bool) error {
	pc := PeersConfig{Model: cfg.Model, Sizes: PeersSizes{ImageBytes: cfg.ImageBytes}, SparseImages: true, Placement: p}
	if err := mkfsVLFS(pc, t.img); err != nil {
		return err
	}
	if err := os.Mkdir(t.mnt, 0o755); err != nil {
		return err
	}
	names := []string{"data"}
	if updates {
		names = append(names, updateFile)
	}
	return fillFiles(t.img, cfg.FileBytes, names...)
}

// updateFile is the file an in-place load's writer overwrites.
const updateFile = "u"

func newMountBatchReport(cfg *MountBatchConfig, in disk.CStarInputs) *Report {
	dp := cfg.Model.Params()
	dp["block_size"], dp["d_ms"], dp["k_ms_per_block"], dp["c_star_blocks"] = 4096, in.DMs, in.KMs, in.Batch
	return &Report{
		Bench: "mountbatch", Disk: dp, Clock: ClockWall,
		Params: map[string]any{
			"image_bytes": cfg.ImageBytes, "file_bytes": cfg.FileBytes, "duration_s": cfg.Duration.Seconds(),
			"period_ms": cfg.PeriodMs, "write_bytes": cfg.WriteBytes, "fsync_bytes": cfg.FsyncBytes, "seed": cfg.Seed,
		},
		Columns: []string{"load", "mode", "placement", "rho_r", "rho_w", "writers", "batch_blocks", "reads", "read_mean_ms", "read_p50_ms", "read_p99_ms",
			"write_mb_s", "fsyncs", "fsync_mean_ms", "dev_reads", "unlocked_batches"},
		Notes: []string{
			"through a FUSE mount served in this process on the real-time clock: every device request sleeps the disk model's service time, so the scheduler sees the mount's real queue",
			"loads A-D are the paper's (open): Poisson reads of random 4 KiB blocks of the read file with O_DIRECT at rho_r / (D + k) per ms, each its own thread; Poisson 4 KiB appends at rho_w / (D + k) per ms by one thread that fsyncs every period_ms; D + k is the one-block service time of formula (4)",
			"loads A-ip to D-ip are A-D on a second image that places blocks in place (the paper's conventional file system): the writer overwrites random 4 KiB blocks of a file as large as the read file, so each block written out costs a positioning, as the paper's writes do; on the eager image (A-D) a period's appends go out in a few runs near the head",
			"load S2 (closed): one thread reads back to back while 2 writers append write_bytes and fsync every fsync_bytes as fast as they can; there more reads served means less disk time for the writers",
			"read_* are the readers' wall-clock response times; write_mb_s counts bytes whose fsync returned within the point; dev_reads: device read requests (the file system's caches answer the rest); unlocked_batches: batches of file data written with the file system's lock released",
		},
	}
}

// fillFiles writes files of the given names and size (random bytes) into
// the image and commits them, on the virtual clock, so that making them
// costs no wall time.
func fillFiles(img string, size int64, names ...string) error {
	t := &vlfsTarget{img: img}
	fs, err := t.open(vlfs.VolumeOptions(vlfs.Options{}), vlfs.Options{})
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	rng := rand.New(rand.NewSource(1))
	for _, name := range names {
		a, err := fs.Create(vlfs.RootIno, name, 0o644, 0, 0)
		for off := int64(0); off < size && err == nil; off += int64(len(buf)) {
			rng.Read(buf)
			_, err = fs.Write(a.Ino, off, buf[:min(int64(len(buf)), size-off)])
		}
		if err != nil {
			return errors.Join(err, fs.Close())
		}
	}
	return errors.Join(fs.Sync(), fs.Close())
}

// checkImage runs the file system's check on the unmounted image.
func checkImage(img string) error {
	t := &vlfsTarget{img: img}
	ro := vlfs.Options{ReadOnly: true}
	fs, err := t.open(vlfs.VolumeOptions(ro), ro)
	if err != nil {
		return err
	}
	return errors.Join(fs.Check(), fs.Close())
}

// pointResult is what one load measured.
type pointResult struct {
	mu      sync.Mutex
	reads   []float64 // ms
	fsyncs  []float64 // ms
	durable int64     // bytes whose fsync returned within the point
	err     error
}

func (p *pointResult) add(reads, fsyncs []float64, durable int64, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reads, p.fsyncs = append(p.reads, reads...), append(p.fsyncs, fsyncs...)
	p.durable += durable
	p.err = errors.Join(p.err, err)
}

// mountBatchPoint runs one mode and load on the mounted image.
func mountBatchPoint(cfg *MountBatchConfig, t *vlfsTarget, mode string, l MountLoad, serviceMs float64) (map[string]any, error) {
	st0 := t.fs.Stats()
	stop := time.Now().Add(cfg.Duration)
	data := filepath.Join(t.mnt, "data")
	res := &pointResult{}
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	writers := l.Writers
	if writers > 0 {
		run(func() {
			res.add(closedReads(data, cfg.FileBytes, stop, cfg.Seed))
		})
		for i := 0; i < writers; i++ {
			run(func() {
				fs, n, err := appendAndFsync(writerPath(t, i), cfg.WriteBytes, cfg.FsyncBytes, stop)
				res.add(nil, fs, n, err)
			})
		}
	} else {
		run(func() { res.add(openReads(data, cfg.FileBytes, l.RhoR/serviceMs, stop, cfg.Seed)) })
		w := openWriter{rate: l.RhoW / serviceMs, periodMs: cfg.PeriodMs, stop: stop, seed: cfg.Seed + 1}
		if l.InPlace {
			w.path, w.size = filepath.Join(t.mnt, updateFile), cfg.FileBytes
		} else {
			writers, w.path = 1, writerPath(t, 0)
		}
		run(func() {
			fs, n, err := w.run()
			res.add(nil, fs, n, err)
		})
	}
	wg.Wait()
	if res.err != nil {
		return nil, res.err
	}
	st1 := t.fs.Stats()
	row := map[string]any{
		"load": l.Name, "mode": mode, "rho_r": l.RhoR, "rho_w": l.RhoW, "writers": l.Writers,
		"batch_blocks": st1.Vol.BatchBlocks, "reads": len(res.reads),
		"write_mb_s": float64(res.durable) / cfg.Duration.Seconds() / 1e6, "fsyncs": len(res.fsyncs),
		"dev_reads": st1.Vol.Reads - st0.Vol.Reads, "unlocked_batches": st1.UnlockedBatches - st0.UnlockedBatches,
	}
	if len(res.reads) > 0 {
		row["read_mean_ms"] = meanOf(res.reads)
		row["read_p50_ms"] = percentile(res.reads, 0.5)
		row["read_p99_ms"] = percentile(res.reads, 0.99)
	}
	if len(res.fsyncs) > 0 {
		row["fsync_mean_ms"] = meanOf(res.fsyncs)
	}
	// The writers' files go, so that every point starts from the same
	// space; the removal is committed before the next point.
	for i := 0; i < writers; i++ {
		if err := os.Remove(writerPath(t, i)); err != nil {
			return nil, err
		}
	}
	return row, syncDir(t.mnt)
}

func writerPath(t *vlfsTarget, i int) string { return filepath.Join(t.mnt, fmt.Sprintf("w%d", i)) }

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
				logf("bench: writing the %s profile: %v", name, err)
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

// closedReads reads random 4 KiB blocks of the first size bytes of path
// with O_DIRECT, one after another, until stop, and returns each read's
// time in ms.
func closedReads(path string, size int64, stop time.Time, seed int64) ([]float64, []float64, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	buf := alignedBlock(4096)
	rng := rand.New(rand.NewSource(seed))
	var ms []float64
	for time.Now().Before(stop) {
		d, err := directRead(f, buf, rng.Int63n(size/4096)*4096)
		if err != nil {
			return ms, nil, 0, err
		}
		ms = append(ms, d)
	}
	return ms, nil, 0, nil
}

// openReads reads random 4 KiB blocks of path with O_DIRECT arriving as
// a Poisson process of rate per ms until stop, each read a thread of its
// own, and returns each read's time in ms.
func openReads(path string, size int64, rate float64, stop time.Time, seed int64) ([]float64, []float64, int64, error) {
	if rate <= 0 {
		return nil, nil, 0, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(seed))
	res := &pointResult{}
	var wg sync.WaitGroup
	for next := time.Now(); ; {
		next = next.Add(time.Duration(rng.ExpFloat64() / rate * float64(time.Millisecond)))
		if !next.Before(stop) {
			break
		}
		time.Sleep(time.Until(next))
		off := rng.Int63n(size/4096) * 4096
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := directRead(f, alignedBlock(4096), off)
			res.add([]float64{d}, nil, 0, err)
		}()
	}
	wg.Wait()
	return res.reads, nil, 0, res.err
}

// directRead reads len(buf) bytes at off and returns the time it took, ms.
func directRead(f *os.File, buf []byte, off int64) (float64, error) {
	t0 := time.Now()
	if n, err := f.ReadAt(buf, off); err != nil || n != len(buf) {
		return 0, fmt.Errorf("direct read at %d: %d bytes, %v", off, n, err)
	}
	return float64(time.Since(t0)) / 1e6, nil
}

// openWriter is an open load's writer: 4 KiB writes arriving as a
// Poisson process of rate per ms, and an fsync every periodMs, until
// stop. With size 0 it appends to a new file at path; otherwise it
// overwrites random blocks of the existing file of that size.
type openWriter struct {
	path           string
	size           int64
	rate, periodMs float64
	stop           time.Time
	seed           int64
}

// run returns each fsync's time in ms and the bytes made durable by
// fsyncs that returned before stop.
func (w openWriter) run() ([]float64, int64, error) {
	flags := os.O_WRONLY
	if w.size == 0 {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(w.path, flags, 0o644)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	rng := rand.New(rand.NewSource(w.seed))
	buf := make([]byte, 4096)
	rng.Read(buf)
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Millisecond)) }
	var written, durable int64
	var fsyncs []float64
	now := time.Now()
	nextW, nextS := now.Add(ms(rng.ExpFloat64()/w.rate)), now.Add(ms(w.periodMs))
	if w.rate <= 0 {
		nextW = w.stop
	}
	for {
		next := nextS
		if nextW.Before(next) {
			next = nextW
		}
		if !next.Before(w.stop) {
			return fsyncs, durable, nil
		}
		time.Sleep(time.Until(next))
		if next == nextW {
			if w.size == 0 {
				_, err = f.Write(buf)
			} else {
				_, err = f.WriteAt(buf, rng.Int63n(w.size/4096)*4096)
			}
			if err != nil {
				return fsyncs, durable, err
			}
			written += int64(len(buf))
			nextW = nextW.Add(ms(rng.ExpFloat64() / w.rate))
			continue
		}
		t0, n := time.Now(), written
		if err := f.Sync(); err != nil {
			return fsyncs, durable, err
		}
		fsyncs = append(fsyncs, float64(time.Since(t0))/1e6)
		if time.Now().Before(w.stop) {
			durable = n
		}
		nextS = nextS.Add(ms(w.periodMs))
	}
}

// alignedBlock is an n-byte buffer at an address that is a multiple of
// 4096, as O_DIRECT wants.
func alignedBlock(n int) []byte {
	b := make([]byte, n+4096)
	skip := (4096 - int(uintptr(unsafe.Pointer(&b[0]))%4096)) % 4096
	return b[skip : skip+n]
}

// appendAndFsync appends writes of size n to a new file at path, fsyncing
// every every bytes, until stop. It returns each fsync's time in ms and
// the bytes made durable by fsyncs that returned before stop.
func appendAndFsync(path string, n int, every int64, stop time.Time) ([]float64, int64, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	buf := make([]byte, n)
	rand.New(rand.NewSource(int64(len(path)))).Read(buf)
	var written, durable int64
	var ms []float64
	for time.Now().Before(stop) {
		if _, err := f.Write(buf); err != nil {
			return ms, durable, err
		}
		written += int64(n)
		if written%every < int64(n) {
			t0 := time.Now()
			if err := f.Sync(); err != nil {
				return ms, durable, err
			}
			ms = append(ms, float64(time.Since(t0))/1e6)
			if time.Now().Before(stop) {
				durable = written
			}
		}
	}
	return ms, durable, nil
}
