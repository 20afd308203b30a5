package bench

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/logical"
)

// NVRAMBytes is the LFS baseline's file buffer cache: MinixUFS's 6.1 MB,
// which the virtual-log paper assumes to be NVRAM in sections 5.3 and 5.5
// so that LFS gives the same durability as the synchronous systems.
const NVRAMBytes = 6_100_000

// nvram is the LFS baseline's buffer: an update is durable once it is in
// it (memory speed, no simulated time); when it holds NVRAMBytes of dirty
// blocks it is flushed to the logical disk as one scattered write, which
// the log appends segment by segment, and one sync.
type nvram struct {
	d     *logical.Disk
	cap   int
	dirty map[int64]bool
	block []byte
}

func newNVRAM(d *logical.Disk) *nvram {
	return &nvram{d: d, cap: NVRAMBytes / d.BlockSize(), dirty: map[int64]bool{}, block: make([]byte, d.BlockSize())}
}

// update buffers logical block l, flushing first if the buffer is full.
// flushed says whether it flushed.
func (n *nvram) update(l int64) (flushed bool, err error) {
	if !n.dirty[l] && len(n.dirty) >= n.cap {
		if err := n.flush(); err != nil {
			return false, err
		}
		flushed = true
	}
	n.dirty[l] = true
	return flushed, nil
}

// flush writes every dirty block, in logical order, a segment's worth
// per request (so that the cleaner can run between them when clean
// segments run low: the buffer can be larger than the free space), and
// syncs.
func (n *nvram) flush() error {
	if len(n.dirty) == 0 {
		return nil
	}
	ls := make([]int64, 0, len(n.dirty))
	for l := range n.dirty {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i] < ls[j] })
	seg := lfsSegmentBytes / n.d.BlockSize()
	data := make([][]byte, seg)
	for i := range data {
		data[i] = n.block
	}
	for i := 0; i < len(ls); i += seg {
		k := min(seg, len(ls)-i)
		if err := n.d.WriteScattered(ls[i:i+k], data[:k]); err != nil {
			return fmt.Errorf("flushing the NVRAM buffer: %w", err)
		}
	}
	n.dirty = map[int64]bool{}
	return n.d.Sync()
}

// lfsSegmentBytes is the LFS placement's segment size (vld's default).
const lfsSegmentBytes = 512 << 10

// lfsFlushes is how many NVRAM flushes an LFS point measures.
const lfsFlushes = 4

// updatesLFSPoint is Figure 8's LFS curve at one utilisation: random
// 4 KiB updates into the NVRAM buffer, flushed to the log when full, the
// cleaner running when clean segments run low. The warm-up writes as much
// as the free space (so the cleaner is in its steady state) and ends at a
// flush; the measurement then covers whole flush cycles: at least
// cfg.Updates updates and lfsFlushes flushes. mean_ms = simulated time of
// the measured cycles / their updates.
func updatesLFSPoint(cfg UpdatesConfig, d *logical.Disk, file int64, u float64) (map[string]any, error) {
	d.SetCleaner(logical.CleanerConfig{Policy: cfg.CleanPolicy})
	rng := rand.New(rand.NewSource(cfg.Seed))
	buf := newNVRAM(d)
	v := d.Volume()
	free := v.FreeBlocks()
	written := func() int64 { return d.CleanerStats().ClientBlocks }
	w0 := written()
	for written()-w0 < free {
		if _, err := buf.update(rng.Int63n(file)); err != nil {
			return nil, fmt.Errorf("updates: warm-up at %.0f%%: %w", u*100, err)
		}
	}
	for {
		f, err := buf.update(rng.Int63n(file))
		if err != nil {
			return nil, err
		}
		if f {
			break
		}
	}
	// The update that triggered the flush is in the buffer: count it in.
	s0, c0 := v.Stats(), d.CleanerStats()
	n, flushes := 1, 0
	for n < cfg.Updates || flushes < lfsFlushes {
		f, err := buf.update(rng.Int63n(file))
		if err != nil {
			return nil, fmt.Errorf("updates at %.0f%%: %w", u*100, err)
		}
		if f {
			flushes++
			if n >= cfg.Updates && flushes >= lfsFlushes {
				break
			}
		}
		n++
	}
	c1 := d.CleanerStats()
	client := c1.ClientBlocks - c0.ClientBlocks
	moved, read := c1.BlocksMoved-c0.BlocksMoved, c1.BlocksRead-c0.BlocksRead
	row := perUpdate(s0, v.Stats(), n)
	row["placement"], row["utilization"] = vld.PlaceLFS.String(), u
	row["cleaned_segments"] = c1.SegmentsCleaned - c0.SegmentsCleaned
	row["moved_blocks"] = moved
	row["write_cost"] = float64(client+moved+read) / float64(max(client, 1))
	row["clean_ms_per_update"] = (c1.CleanMs - c0.CleanMs) / float64(n)
	row["flushes"] = flushes
	return row, nil
}
