package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Defaults of the host-flush benchmark.
const (
	DefaultHostFlushFileMiB = 256
	DefaultHostFlushSamples = 3000
	hostBlock               = 4096
)

// HostFlushConfig configures HostFlush. Zero values pick the defaults.
type HostFlushConfig struct {
	Dir      string    // host directory for the scratch file ("" = $TMPDIR)
	FileMiB  int       // scratch file size; writes land at random places in it
	Samples  int       // timed operations per pattern
	Seed     int64     // picks the write offsets
	Progress io.Writer // nil: quiet
}

// flushPattern is one way of making 4 KiB blocks durable: runs[i] blocks
// written contiguously by one pwritev, then one fdatasync. With gap >= 0
// the runs follow one another, gap blocks apart (a run of vlfs's commit
// split by a block still in use); with gap < 0 each run is at its own
// random place. No runs is a bare fdatasync.
type flushPattern struct {
	name string
	runs []int
	gap  int
	what string
}

// hostFlushPatterns are the write sets behind the write+fsync figures of
// `vlfs bench peers`: what a pass-through writes for a 4 KiB overwrite,
// what vlfs writes, and what lies between.
func hostFlushPatterns() []flushPattern {
	return []flushPattern{
		{"flush", nil, 0, "fdatasync with nothing dirty: the device cache flush alone"},
		{"1", []int{1}, 0, "a pass-through's 4 KiB overwrite (native, loopback)"},
		{"2", []int{2}, 0, "data and one metadata block, together"},
		{"5", []int{5}, 0, "vlfs's overwrite commit in one run: data, leaf, double indirect, inode block, log entry"},
		{"1_4", []int{1, 4}, 1, "the same five blocks in two runs one block apart, as vlfs writes them when a live block splits the run"},
		{"5x1", []int{1, 1, 1, 1, 1}, -1, "five blocks at five random places"},
	}
}

// HostFlush measures what durability costs on the host file system under
// Dir, on the wall clock, for the write sets of hostFlushPatterns. It gives
// the floor under every write+fsync figure of `vlfs bench peers`: no FUSE
// file system can make a 4 KiB overwrite durable faster than the host
// makes the blocks it writes durable.
//
// The scratch file is filled with zeros and fdatasync'd first, so every
// write overwrites allocated blocks (as vlfs's images are, and as fio's
// laid-out file is) and no fdatasync commits the host's journal. The
// patterns take turns operation by operation, so drift on a shared host
// touches them alike.
func HostFlush(cfg HostFlushConfig) (*Report, error) {
	if cfg.FileMiB == 0 {
		cfg.FileMiB = DefaultHostFlushFileMiB
	}
	if cfg.Samples == 0 {
		cfg.Samples = DefaultHostFlushSamples
	}
	if cfg.FileMiB < 1 || cfg.Samples < 1 {
		return nil, fmt.Errorf("bench hostflush: file size and samples must be positive, got %d MiB and %d", cfg.FileMiB, cfg.Samples)
	}
	f, err := os.CreateTemp(cfg.Dir, "vlfs-hostflush-*.dat")
	if err != nil {
		return nil, fmt.Errorf("bench hostflush: scratch file: %w", err)
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	fileBlocks := int64(cfg.FileMiB) << 20 / hostBlock
	if err := fillZeros(f, fileBlocks); err != nil {
		return nil, err
	}
	pats := hostFlushPatterns()
	lat := make([][]float64, len(pats))
	rng := rand.New(rand.NewSource(cfg.Seed))
	buf := make([]byte, 5*hostBlock)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros: some host file systems skip zero pages
	}
	p := NewProgress(cfg.Progress, "bench hostflush", cfg.Samples)
	fd := int(f.Fd())
	for s := 0; s < cfg.Samples; s++ {
		for i, pat := range pats {
			us, err := timeFlush(fd, pat, buf, fileBlocks, rng)
			if err != nil {
				return nil, fmt.Errorf("bench hostflush: pattern %s: %w", pat.name, err)
			}
			lat[i] = append(lat[i], us)
		}
		p.Step("")
	}
	p.Done()
	return hostFlushReport(cfg, pats, lat), nil
}

// fillZeros writes zeros over the whole file and makes it durable, so the
// host has allocated (and written) every block before the timing starts.
func fillZeros(f *os.File, blocks int64) error {
	zero := make([]byte, 1<<20)
	for off := int64(0); off < blocks*hostBlock; off += int64(len(zero)) {
		n := min(int64(len(zero)), blocks*hostBlock-off)
		if _, err := f.WriteAt(zero[:n], off); err != nil {
			return fmt.Errorf("bench hostflush: filling the scratch file: %w", err)
		}
	}
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		return fmt.Errorf("bench hostflush: filling the scratch file: %w", err)
	}
	return nil
}

// timeFlush writes the pattern's runs at a random block-aligned place (one
// pwritev per run) and fdatasyncs, returning the time taken in µs.
func timeFlush(fd int, pat flushPattern, buf []byte, fileBlocks int64, rng *rand.Rand) (float64, error) {
	offs := make([]int64, len(pat.runs))
	span := int64(0) // blocks from the first run's start to the last run's end
	for i, n := range pat.runs {
		if i > 0 {
			span += int64(pat.gap)
		}
		span += int64(n)
	}
	base := int64(0)
	if pat.gap >= 0 {
		base = rng.Int63n(fileBlocks-min(span, fileBlocks)+1) * hostBlock
	}
	for i, n := range pat.runs {
		switch {
		case pat.gap < 0:
			offs[i] = rng.Int63n(fileBlocks-int64(n)+1) * hostBlock
		case i == 0:
			offs[i] = base
		default:
			offs[i] = offs[i-1] + int64(pat.runs[i-1]+pat.gap)*hostBlock
		}
	}
	t0 := time.Now()
	for i, n := range pat.runs {
		want := n * hostBlock
		got, err := unix.Pwritev(fd, [][]byte{buf[:want]}, offs[i])
		if err != nil {
			return 0, err
		}
		if got != want {
			return 0, errors.New("short write")
		}
	}
	if err := unix.Fdatasync(fd); err != nil {
		return 0, err
	}
	return float64(time.Since(t0).Nanoseconds()) / 1e3, nil
}

// hostFlushReport turns the samples into rows, each pattern against the
// one-block pattern of the same run. Times are in ms, as every report's
// are (report_shape.go); the table shows them to the µs.
func hostFlushReport(cfg HostFlushConfig, pats []flushPattern, lat [][]float64) *Report {
	rep := &Report{
		Bench: "hostflush",
		Disk:  map[string]any{"name": "host", "dir": hostDirName(cfg.Dir)},
		Clock: ClockWall,
		Params: map[string]any{
			"file_mib": cfg.FileMiB, "samples": cfg.Samples, "seed": cfg.Seed, "block_bytes": hostBlock,
		},
		Columns: []string{"pattern", "blocks", "runs", "p10_ms", "p50_ms", "p90_ms", "p50_x_one", "p50_minus_one_ms"},
	}
	var one float64
	for i, pat := range pats {
		if len(pat.runs) == 1 && pat.runs[0] == 1 {
			one = percentile(lat[i], 0.5)
		}
	}
	for i, pat := range pats {
		blocks := 0
		for _, n := range pat.runs {
			blocks += n
		}
		p50 := percentile(lat[i], 0.5)
		row := map[string]any{
			"pattern": pat.name, "blocks": blocks, "runs": len(pat.runs),
			"p10_ms": percentile(lat[i], 0.1) / 1e3, "p50_ms": p50 / 1e3, "p90_ms": percentile(lat[i], 0.9) / 1e3,
			"p50_minus_one_ms": (p50 - one) / 1e3,
		}
		if one > 0 {
			row["p50_x_one"] = p50 / one
		}
		rep.Rows = append(rep.Rows, row)
	}
	rep.Notes = append(rep.Notes,
		"Each operation writes its runs with one pwritev each, at random 4 KiB-aligned places in a zero-filled, fdatasync'd scratch file, then calls fdatasync; the patterns take turns operation by operation.",
		"A FUSE file system's 4 KiB write+fsync costs at least the host's figure for the blocks it writes, plus its FUSE round trips and CPU: pattern 1 is the floor of a pass-through (native, loopback), patterns 5 and 1_4 the floor of vlfs's overwrite commit.",
	)
	for _, pat := range pats {
		rep.Notes = append(rep.Notes, "Pattern "+pat.name+": "+pat.what+".")
	}
	return rep
}

// hostDirName names where the scratch file went.
func hostDirName(dir string) string {
	if dir == "" {
		return os.TempDir()
	}
	return dir
}
