package bench

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/vlfs/vlfs/fuseserve"
	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/profile"
	"github.com/vlfs/vlfs/vlfs"
	"github.com/vlfs/vlfs/vlfs/fusefs"
)

// SQLiteJournalConfig is the log-skipping demonstration of issue 8 on a
// real mount: SQLite with synchronous=FULL (every commit an fsync of the
// journal) running TPC-B-like transactions with think time on vlfs
// mounted on the real-time clock, so that every device request sleeps its
// simulated service time and the disk's mechanics show on the wall clock.
type SQLiteJournalConfig struct {
	Model        *disk.Model
	Profile      *profile.Profile // nil: profile sim:MODEL over the image with SimGrid
	ImageBytes   int64            // default 64 MiB
	Transactions int              // measured transactions per run; default 400
	Warmup       int              // transactions before the measurement; default 50
	ThinkMeanMs  []float64        // think time before each transaction, uniform in [0, 2 x mean]; default 1, 10
	Mode         string           // SQLite journal_mode: wal (default; appends only) or delete
	Accounts     int              // rows of the accounts table; default 10000
	Rounds       int              // runs of every (think, layout), in rotated order, pooled; default 2
	Dir          string           // where mount points go; default os.TempDir()
	Seed         int64
	Logf         func(string, ...any)
}

// Layouts of the SQLite demonstration.
const (
	LayoutSequential = "sequential" // an in-place image: the journal's blocks are written where they are
	LayoutProfile    = "profile"    // eager placement by the profiled head
	LayoutOracle     = "oracle"     // eager placement by the simulated head
)

func (c *SQLiteJournalConfig) setDefaults() error {
	if c.Model == nil {
		return fmt.Errorf("sqlite journal: no disk model: %w", disk.ErrInvalidModel)
	}
	if c.ImageBytes == 0 {
		c.ImageBytes = 64 << 20
	}
	if c.Transactions <= 0 {
		c.Transactions = 400
	}
	if c.Warmup < 0 {
		c.Warmup = 0
	} else if c.Warmup == 0 {
		c.Warmup = 50
	}
	if len(c.ThinkMeanMs) == 0 {
		c.ThinkMeanMs = []float64{1, 10}
	}
	if c.Mode == "" {
		c.Mode = "wal"
	}
	if c.Accounts <= 0 {
		c.Accounts = 10000
	}
	if c.Rounds <= 0 {
		c.Rounds = 2
	}
	if c.Dir == "" {
		c.Dir = os.TempDir()
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	if c.Profile == nil {
		p, err := ProfileSim(c.Model, c.ImageBytes, c.Seed)
		if err != nil {
			return fmt.Errorf("sqlite journal: profiling sim:%s: %w", c.Model.Name, err)
		}
		c.Profile = p
	}
	return nil
}

// SQLiteJournal runs the demonstration: for each think time, the same
// transactions on a fresh image with each layout, on the wall clock.
func SQLiteJournal(cfg SQLiteJournalConfig) (*Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	rep := &Report{
		Bench: "headmodels-sqlite", Disk: cfg.Model.Params(), Clock: ClockWall,
		Params: map[string]any{
			"image_bytes": cfg.ImageBytes, "transactions": cfg.Transactions, "warmup": cfg.Warmup, "journal_mode": cfg.Mode,
			"accounts": cfg.Accounts, "seed": cfg.Seed, "rounds": cfg.Rounds, "paper_table3_cached_speedup": 0.619, "profile": profileParams(cfg.Profile),
		},
		Columns: []string{"layout", "think_mean_ms", "total_ms", "txn_ms", "txn_p50_ms", "txn_p99_ms", "disk_ms_per_txn", "dev_writes_per_txn", "speedup_vs_sequential"},
		Notes: []string{
			"vlfs mounted through FUSE on the real-time clock over an image in memory: every device request sleeps its simulated service time, so the disk's mechanics are in the wall-clock figures, with FUSE, SQLite and the host's CPU around them (no host disk)",
			"each transaction: think (uniform in [0, 2 x mean]), then pgbench's TPC-B script in SQLite with synchronous=FULL; total_ms is think + transactions, the measure of Table 3, summed over the rounds (every layout runs once per round, in rotated order; transactions are pooled)",
			"sequential: an in-place image (the journal's blocks are written where they lie, one after another); profile/oracle: eager placement by the profiled/simulated head",
			"disk_ms_per_txn: the simulated disk's busy time per transaction (overhead + transfer + locate)",
			"speedup_vs_sequential = total(sequential) / total(layout) - 1 (Table 3, cached: 44.2 s / 27.3 s - 1 = 61.9 %)",
		},
	}
	rep.Params["loadavg_start"] = loadAvg()
	defer func() { rep.Params["loadavg_end"] = loadAvg() }()
	layouts := []string{LayoutSequential, LayoutProfile, LayoutOracle}
	for _, think := range cfg.ThinkMeanMs {
		runs := map[string]*sqliteJournalResult{}
		for r := 0; r < cfg.Rounds; r++ {
			for k := range layouts {
				layout := layouts[(k+r)%len(layouts)] // rotated: drift of the host favours none
				cfg.Logf("headmodels sqlite: think %g ms, %s, round %d", think, layout, r+1)
				run, err := sqliteJournalRun(cfg, layout, think)
				if err != nil {
					return nil, fmt.Errorf("sqlite journal %s, think %g ms: %w", layout, think, err)
				}
				runs[layout] = runs[layout].add(run)
			}
		}
		seq := runs[LayoutSequential].totalMs
		for _, layout := range layouts {
			row := runs[layout].row(layout, think)
			row["speedup_vs_sequential"] = seq/runs[layout].totalMs - 1
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

// sqliteJournalResult is what one or more runs measured.
type sqliteJournalResult struct {
	totalMs, busyMs, writes float64   // sums over the runs
	txnMs                   []float64 // every measured transaction
}

// add pools o into r (nil r is empty).
func (r *sqliteJournalResult) add(o *sqliteJournalResult) *sqliteJournalResult {
	if r == nil {
		return o
	}
	r.totalMs += o.totalMs
	r.busyMs += o.busyMs
	r.writes += o.writes
	r.txnMs = append(r.txnMs, o.txnMs...)
	return r
}

// row is the report row of the pooled runs.
func (r *sqliteJournalResult) row(layout string, think float64) map[string]any {
	n := float64(len(r.txnMs))
	var sum float64
	for _, v := range r.txnMs {
		sum += v
	}
	sort.Float64s(r.txnMs)
	return map[string]any{
		"layout":             layout,
		"think_mean_ms":      think,
		"total_ms":           r.totalMs,
		"txn_ms":             sum / n,
		"txn_p50_ms":         r.txnMs[len(r.txnMs)/2],
		"txn_p99_ms":         r.txnMs[min(len(r.txnMs)-1, len(r.txnMs)*99/100)],
		"disk_ms_per_txn":    r.busyMs / n,
		"dev_writes_per_txn": r.writes / n,
	}
}

// sqliteJournalRun formats and mounts an image for layout, runs the
// warm-up and the measured transactions, unmounts and checks the image.
func sqliteJournalRun(cfg SQLiteJournalConfig, layout string, thinkMean float64) (*sqliteJournalResult, error) {
	base, err := os.MkdirTemp(cfg.Dir, "vlfs-headmodels-sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(base)
	mnt := filepath.Join(base, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		return nil, err
	}
	place, opts := vld.PlaceEager, vlfs.Options{Logf: cfg.Logf}
	vo := vlfs.VolumeOptions(opts)
	vo.Clock = vld.ClockReal
	switch layout {
	case LayoutSequential:
		place = vld.PlaceInPlace
	case LayoutProfile:
		vo.Head = cfg.Profile
	}
	// The image lives in memory: the simulated disk's service times are
	// slept on the real-time clock, and a host file under it would add the
	// host's own fdatasync latency, which on a shared machine varies more
	// than the effect measured.
	dev := device.NewMem(cfg.ImageBytes)
	if err := vlfs.Mkfs(dev, vlfs.MkfsOptions{Model: cfg.Model, Placement: place}); err != nil {
		return nil, err
	}
	fs, err := vlfs.MountWith(dev, vo, opts)
	if err != nil {
		dev.Close()
		return nil, err
	}
	srv, err := fusefs.Mount(mnt, fs, fusefs.Options{Options: fuseserve.Options{FSName: "vlfs-headmodels-sqlite", Logf: cfg.Logf}})
	if err != nil {
		fs.Close()
		return nil, err
	}
	row, runErr := sqliteJournalTxns(cfg, fs, filepath.Join(mnt, "tpcb.db"), thinkMean)
	err = unmountWait(mnt, srv)
	if err == nil {
		err = fs.Check()
	}
	if cerr := fs.Close(); err == nil {
		err = cerr
	}
	if runErr != nil {
		return nil, runErr
	}
	return row, err
}

// sqliteJournalTxns runs the schema, the warm-up and the measured
// transactions through one sqlite3 shell.
func sqliteJournalTxns(cfg SQLiteJournalConfig, fs *vlfs.FS, db string, thinkMean float64) (*sqliteJournalResult, error) {
	sh, err := startSQLite(db)
	if err != nil {
		return nil, err
	}
	if err := sh.exec(sqliteSchema(cfg.Mode, cfg.Accounts)); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewSource(cfg.Seed))
	think := func() time.Duration {
		return time.Duration(rng.Float64() * 2 * thinkMean * float64(time.Millisecond))
	}
	for i := 0; i < cfg.Warmup; i++ {
		time.Sleep(think())
		if err := sh.exec(tpcbTxn(rng, cfg.Accounts)); err != nil {
			return nil, err
		}
	}
	s0 := fs.Stats().Vol
	txn := make([]float64, 0, cfg.Transactions)
	start := time.Now()
	for i := 0; i < cfg.Transactions; i++ {
		time.Sleep(think())
		t0 := time.Now()
		if err := sh.exec(tpcbTxn(rng, cfg.Accounts)); err != nil {
			return nil, err
		}
		txn = append(txn, float64(time.Since(t0))/float64(time.Millisecond))
	}
	total := time.Since(start)
	s1 := fs.Stats().Vol
	if err := sh.close(); err != nil {
		return nil, err
	}
	busy := (s1.Sim.OverheadMs + s1.Sim.TransferMs + s1.Sim.LocateMs) - (s0.Sim.OverheadMs + s0.Sim.TransferMs + s0.Sim.LocateMs)
	return &sqliteJournalResult{totalMs: float64(total) / float64(time.Millisecond), busyMs: busy, writes: float64(s1.Writes - s0.Writes), txnMs: txn}, nil
}

// unmountWait unmounts mnt (retrying while it is busy) and waits for the
// server to finish.
func unmountWait(mnt string, srv *fusefs.Server) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = fusefs.Unmount(mnt, false); err == nil || errors.Is(err, fusefs.ErrNotMounted) {
			err = nil
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		fusefs.Unmount(mnt, true)
	}
	srv.Wait()
	return err
}

// loadAvg is the host's one-minute load average (/proc/loadavg), recorded
// beside wall-clock figures: on a shared machine it says how far to trust
// them. -1 when unknown.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var v float64
	if _, err := fmt.Sscanf(string(b), "%f", &v); err != nil {
		return -1
	}
	return v
}
