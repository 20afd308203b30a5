package bench

import (
	"fmt"
	"math/rand"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vlfs"
)

// LargefileConfig is Figure 7 of the virtual-log paper: one large file
// written and read sequentially and at random.
type LargefileConfig struct {
	Model      *disk.Model
	DiskBytes  int64 // image size; default 128 MiB
	FileBytes  int64 // default 10 MiB
	IOBytes    int   // sequential request size; default 64 KiB (random I/O is 4 KiB)
	Seed       int64
	Placements []vld.Placement
	// Head is the head model eager placement writes by: nil is the
	// simulator's own head (the oracle), else a profile from vlfs profile.
	Head *profile.Profile
}

// Largefile runs, for each placement, in process on the simulated clock:
// sequential write, sequential read, random write (asynchronous: buffered,
// one sync at the end), random write synchronous (inplace and eager only:
// an fsync after each 4 KiB write), sequential read, random read. Every
// read phase starts after an unmount and mount (a cold cache).
func Largefile(cfg LargefileConfig) (*Report, error) {
	if cfg.Model == nil {
		return nil, fmt.Errorf("largefile: no disk model: %w", disk.ErrInvalidModel)
	}
	cfg.DiskBytes = cmpOr(cfg.DiskBytes, 128<<20)
	cfg.FileBytes = cmpOr(cfg.FileBytes, 10<<20)
	cfg.IOBytes = int(cmpOr(int64(cfg.IOBytes), 64<<10))
	if len(cfg.Placements) == 0 {
		cfg.Placements = Placements
	}
	rep := &Report{
		Bench: "largefile", Disk: cfg.Model.Params(), Clock: ClockSimulated,
		Params:  map[string]any{"disk_bytes": cfg.DiskBytes, "file_bytes": cfg.FileBytes, "io_bytes": cfg.IOBytes, "random_io_bytes": 4096, "seed": cfg.Seed, "head": headName(cfg.Head)},
		Columns: []string{"placement", "phase", "head_model", "time_ms", "mb_s", "normalized"},
		Notes: []string{
			"writes are asynchronous (buffered, one sync ends the phase) except random-write-sync: an fsync after each 4 KiB write, run for inplace and eager only",
			"each read phase follows an unmount and mount (cold cache); vlfs does no read-ahead beyond one request",
			"normalized = inplace time / this time for the phase (> 1 is faster), as in Figure 7",
			"head_model: what the mounted volume says eager placement writes by: simulated (the oracle) or profile (--head profile:FILE); inplace and lfs do not consult it",
		},
	}
	for _, p := range cfg.Placements {
		rows, err := largefileRun(cfg, p)
		if err != nil {
			return nil, fmt.Errorf("largefile %s: %w", p, err)
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	normalise(rep.Rows)
	return rep, nil
}

// largePhase is one phase of the large-file benchmark.
type largePhase struct {
	name string
	cold bool // remount first
	run  func(fs *vlfs.FS, ino vlfs.Ino) error
	skip bool
}

func largefileRun(cfg LargefileConfig, p vld.Placement) ([]map[string]any, error) {
	e, err := newFSEnv(cfg.Model, cfg.DiskBytes, p, cfg.Head)
	if err != nil {
		return nil, err
	}
	a, err := e.fs.Create(vlfs.RootIno, "large", 0o644, 0, 0)
	if err != nil {
		return nil, err
	}
	if err := e.fs.Sync(); err != nil {
		return nil, err
	}
	ino := a.Ino
	blocks := cfg.FileBytes / 4096
	rng := rand.New(rand.NewSource(cfg.Seed))
	order := func() []int64 { // the same random offsets for every placement
		out := make([]int64, blocks)
		for i := range out {
			out[i] = rng.Int63n(blocks) * 4096
		}
		return out
	}
	wrand, wsync, rrand := order(), order(), order()
	seqW := func(fs *vlfs.FS, ino vlfs.Ino) error { return seqIO(fs, ino, cfg.FileBytes, cfg.IOBytes, true) }
	seqR := func(fs *vlfs.FS, ino vlfs.Ino) error { return seqIO(fs, ino, cfg.FileBytes, cfg.IOBytes, false) }
	phases := []largePhase{
		{name: "seq-write", run: seqW},
		{name: "seq-read", cold: true, run: seqR},
		{name: "rand-write", run: func(fs *vlfs.FS, ino vlfs.Ino) error { return randIO(fs, ino, wrand, true, false) }},
		{name: "rand-write-sync", skip: p == vld.PlaceLFS, run: func(fs *vlfs.FS, ino vlfs.Ino) error { return randIO(fs, ino, wsync, true, true) }},
		{name: "seq-read-2", cold: true, run: seqR},
		{name: "rand-read", cold: true, run: func(fs *vlfs.FS, ino vlfs.Ino) error { return randIO(fs, ino, rrand, false, false) }},
	}
	var rows []map[string]any
	for _, ph := range phases {
		if ph.skip {
			continue
		}
		if ph.cold {
			if err := e.remount(); err != nil {
				return nil, err
			}
		}
		ms, err := e.phase(func() error { return ph.run(e.fs, ino) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ph.name, err)
		}
		rows = append(rows, e.phaseRow(p, ph.name, ms, cfg.FileBytes))
	}
	return rows, e.close()
}

// seqIO writes (then syncs) or reads the file from start to end in
// requests of io bytes.
func seqIO(fs *vlfs.FS, ino vlfs.Ino, size int64, io int, write bool) error {
	buf := make([]byte, io)
	for off := int64(0); off < size; off += int64(io) {
		n := int(min(int64(io), size-off))
		if write {
			for i := range buf[:n] {
				buf[i] = byte(off>>12) + byte(i)
			}
			if _, err := fs.Write(ino, off, buf[:n]); err != nil {
				return err
			}
			continue
		}
		if k, err := fs.Read(ino, off, buf[:n]); err != nil || k != n {
			return fmt.Errorf("read at %d: %d of %d bytes: %v", off, k, n, err)
		}
	}
	if write {
		return fs.Sync()
	}
	return nil
}

// randIO writes or reads 4 KiB at each offset; sync makes every write
// durable before the next.
func randIO(fs *vlfs.FS, ino vlfs.Ino, offs []int64, write, sync bool) error {
	buf := make([]byte, 4096)
	for i, off := range offs {
		if !write {
			if k, err := fs.Read(ino, off, buf); err != nil || k != len(buf) {
				return fmt.Errorf("read at %d: %d bytes: %v", off, k, err)
			}
			continue
		}
		buf[0] = byte(i)
		if _, err := fs.Write(ino, off, buf); err != nil {
			return err
		}
		if sync {
			if err := fs.Fsync(ino, false); err != nil {
				return err
			}
		}
	}
	if write {
		return fs.Sync()
	}
	return nil
}
