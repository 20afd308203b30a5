package bench

import (
	"fmt"
	"math/rand"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/disk"
	"github.com/vlfs/vlfs/vld/logical"
	"github.com/vlfs/vlfs/vld/profile"
)

// Journal layouts, as rows of the log-skipping demonstration name them.
const (
	JournalSequential = "sequential" // plain appends: each block after the last (in place)
	JournalProfile    = "profile"    // eager, profiled head (Bark)
	JournalOracle     = "oracle"     // eager, simulated head
	JournalNull       = "null"       // no I/O at all: think time only (Table 3's "null")
)

// PaperBarkSpeedup is Table 3 of the range-writes paper, cached run:
// TPC-B took 44.2 s on ext3 and 27.3 s with Bark, a 61.9 % speed-up.
const PaperBarkSpeedup = paperSeqMs/paperBarkMs - 1

// paperBarkMs is Table 3's cached run with Bark, in seconds.
const paperBarkMs = 27.3

// JournalConfig is the log-skipping demonstration (issue 8, point 4): a
// journal-like workload of synchronous appends with think time, as ext3's
// journal under TPC-B: each transaction writes its descriptor and data
// blocks synchronously, then, once they are durable, a commit block.
type JournalConfig struct {
	Model        *disk.Model
	DiskBytes    int64     // simulated disk region; default 32 MiB (Bark's 2 x S)
	JournalBytes int64     // the logical journal, written circularly; default 16 MiB
	Transactions int       // measured transactions per row; default 2000
	TxnBlocks    int       // descriptor + data blocks per transaction; default 2
	ThinkMs      []float64 // mean think times, one set of rows each; default 1, 3, 10
	Seed         int64
	Profile      *profile.Profile // nil: measure sim:MODEL (ProfileSim)
}

func (c *JournalConfig) setDefaults() error {
	if c.Model == nil {
		return fmt.Errorf("journal: no disk model: %w", disk.ErrInvalidModel)
	}
	if c.DiskBytes == 0 {
		c.DiskBytes = 32 << 20
	}
	if c.JournalBytes == 0 {
		c.JournalBytes = 16 << 20
	}
	if c.Transactions <= 0 {
		c.Transactions = 2000
	}
	if c.TxnBlocks <= 0 {
		c.TxnBlocks = 2
	}
	if len(c.ThinkMs) == 0 {
		c.ThinkMs = []float64{1, 3, 10}
	}
	if c.Profile == nil {
		p, err := ProfileSim(c.Model, c.DiskBytes, c.Seed)
		if err != nil {
			return fmt.Errorf("journal: profiling sim:%s: %w", c.Model.Name, err)
		}
		c.Profile = p
	}
	return nil
}

// Journal runs the demonstration on the simulated clock. Think times are
// drawn uniformly from [0, 2 x mean], the same sequence for every layout.
func Journal(cfg JournalConfig) (*Report, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	rep := &Report{
		Bench: "headmodels-journal", Disk: cfg.Model.Params(), Clock: ClockSimulated,
		Params: map[string]any{
			"disk_bytes": cfg.DiskBytes, "journal_bytes": cfg.JournalBytes, "transactions": cfg.Transactions,
			"txn_blocks": cfg.TxnBlocks, "seed": cfg.Seed, "block_bytes": 4096, "profile": profileParams(cfg.Profile),
			"paper_table3_cached_speedup": PaperBarkSpeedup,
		},
		Columns: []string{"set", "layout", "think_mean_ms", "total_ms", "io_ms_per_txn", "append_ms", "speedup_vs_sequential", "share_of_null_gain"},
		Notes: []string{
			"each transaction: think (uniform in [0, 2 x mean]), one synchronous write of txn_blocks (descriptor + data), then one synchronous commit block; the journal is written circularly; a warm-up of one pass over the journal precedes the measured transactions",
			"sequential: each block right after the last (update in place of a contiguous journal); profile/oracle: eager placement by the profiled/simulated head through LogicalDisk.WriteSync, whose map entries are part of the cost",
			"speedup_vs_sequential = total(sequential) / total(layout) - 1, the measure of Table 3 (cached: 44.2 s / 27.3 s - 1 = 61.9 %); share_of_null_gain = how much of the gap to the null journal (think only) is closed (Bark: (44.2 - 27.3) / (44.2 - 25.4) = 0.90)",
			"set table3: the mean think time at which the null journal takes 25.4/44.2 of the sequential journal's time, as in Table 3; only there does the speed-up compare with the paper's",
		},
	}
	var ioSeq float64
	for _, think := range cfg.ThinkMs {
		rows, io, err := journalSet(cfg, think, "")
		if err != nil {
			return nil, err
		}
		rep.Rows, ioSeq = append(rep.Rows, rows...), io
	}
	// The think time at which the null journal takes the share of the
	// sequential one's time that it takes in Table 3 (25.4 s of 44.2 s):
	// there the speed-up compares with the paper's.
	rows, _, err := journalSet(cfg, ioSeq*paperNullMs/(paperSeqMs-paperNullMs), "table3")
	if err != nil {
		return nil, err
	}
	rep.Rows = append(rep.Rows, rows...)
	return rep, nil
}

// Table 3 of the range-writes paper, cached run, in seconds.
const (
	paperSeqMs  = 44.2
	paperNullMs = 25.4
)

// journalSet runs every layout at one mean think time and returns their
// rows and the sequential layout's I/O time per transaction.
func journalSet(cfg JournalConfig, think float64, set string) ([]map[string]any, float64, error) {
	seq, err := journalRun(cfg, JournalSequential, think)
	if err != nil {
		return nil, 0, err
	}
	null := journalNull(cfg, think)
	n := float64(cfg.Transactions)
	var rows []map[string]any
	for _, layout := range []string{JournalSequential, JournalProfile, JournalOracle} {
		r := seq
		if layout != JournalSequential {
			if r, err = journalRun(cfg, layout, think); err != nil {
				return nil, 0, err
			}
		}
		row := map[string]any{
			"layout": layout, "think_mean_ms": think, "total_ms": r.totalMs,
			"io_ms_per_txn": (r.totalMs - null) / n, "append_ms": (r.totalMs - null) / (2 * n),
			"speedup_vs_sequential": seq.totalMs/r.totalMs - 1,
		}
		if seq.totalMs > null {
			row["share_of_null_gain"] = (seq.totalMs - r.totalMs) / (seq.totalMs - null)
		}
		rows = append(rows, row)
	}
	rows = append(rows, map[string]any{
		"layout": JournalNull, "think_mean_ms": think, "total_ms": null, "io_ms_per_txn": 0.0, "append_ms": 0.0,
		"speedup_vs_sequential": seq.totalMs/null - 1, "share_of_null_gain": 1.0,
	})
	if set != "" {
		for _, r := range rows {
			r["set"] = set
		}
	}
	return rows, (seq.totalMs - null) / n, nil
}

// journalResult is one layout's run.
type journalResult struct{ totalMs float64 }

// thinks is the think-time sequence of a run: the same for every layout.
func (c JournalConfig) thinks(mean float64) []float64 {
	rng := rand.New(rand.NewSource(c.Seed))
	out := make([]float64, c.Transactions)
	for i := range out {
		out[i] = rng.Float64() * 2 * mean
	}
	return out
}

// journalNull is the total think time: a journal that costs nothing.
func journalNull(c JournalConfig, mean float64) float64 {
	var sum float64
	for _, t := range c.thinks(mean) {
		sum += t
	}
	return sum
}

func journalRun(cfg JournalConfig, layout string, think float64) (journalResult, error) {
	place, opts := vld.PlaceEager, vld.Options{}
	switch layout {
	case JournalSequential:
		place = vld.PlaceInPlace
	case JournalProfile:
		opts.Head = cfg.Profile
	}
	dev := device.NewMem(cfg.DiskBytes)
	if err := logical.FormatPlaced(dev, vld.FormatOptions{Model: cfg.Model}, place); err != nil {
		return journalResult{}, err
	}
	d, err := logical.Open(dev, opts)
	if err != nil {
		return journalResult{}, fmt.Errorf("journal %s: %w", layout, err)
	}
	defer d.Volume().Close()
	j := &journal{d: d, size: min(cfg.JournalBytes/int64(d.BlockSize()), d.Blocks()), txn: cfg.TxnBlocks}
	if j.size < int64(j.txn+1) {
		return journalResult{}, fmt.Errorf("journal of %d blocks cannot hold a transaction of %d: %w", j.size, j.txn+1, disk.ErrInvalidModel)
	}
	for j.wraps == 0 { // warm-up: one pass over the journal
		if err := j.commit(); err != nil {
			return journalResult{}, fmt.Errorf("journal %s warm-up: %w", layout, err)
		}
	}
	v := d.Volume()
	t0 := v.NowMs()
	for _, t := range cfg.thinks(think) {
		v.Idle(t)
		if err := j.commit(); err != nil {
			return journalResult{}, fmt.Errorf("journal %s: %w", layout, err)
		}
	}
	res := journalResult{totalMs: v.NowMs() - t0}
	if err := d.Check(); err != nil {
		return journalResult{}, fmt.Errorf("journal %s: %w", layout, err)
	}
	return res, nil
}

// journal appends transactions to logical blocks [0, size), circularly.
type journal struct {
	d     *logical.Disk
	size  int64
	txn   int
	pos   int64
	wraps int
}

// commit writes one transaction: its blocks, durably, then the commit
// block, durably.
func (j *journal) commit() error {
	if j.pos+int64(j.txn)+1 > j.size {
		j.pos, j.wraps = 0, j.wraps+1
	}
	blocks := make([][]byte, j.txn)
	for i := range blocks {
		blocks[i] = make([]byte, j.d.BlockSize())
		blocks[i][0] = byte(j.pos + int64(i))
	}
	if err := j.d.WriteSync(j.pos, blocks); err != nil {
		return err
	}
	commit := [][]byte{make([]byte, j.d.BlockSize())}
	commit[0][0] = 0xc0
	if err := j.d.WriteSync(j.pos+int64(j.txn), commit); err != nil {
		return err
	}
	j.pos += int64(j.txn) + 1
	return nil
}
