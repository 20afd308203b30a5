package bench

import (
	"fmt"
	"math"
	"math/rand"
	"sort"

	"github.com/vlfs/vlfs/vld"
	"github.com/vlfs/vlfs/vld/device"
	"github.com/vlfs/vlfs/vld/sched"
)

// Live-experiment scheduler modes (the rows' "mode").
const (
	ModeCStar   = "cstar"   // batches of c* blocks, reads first (sched.BatchAuto)
	ModeSegment = "segment" // whole 512 KiB segments, reads first (sched.BatchSegment)
	ModeFIFO    = "fifo"    // arrival order, each request whole (sched.BatchFIFO)
	ModeTrack   = "track"   // c* in whole tracks, reads first (sched.BatchAutoTrack)
)

// LiveModes are the live experiment's modes in print order.
func LiveModes() []string { return []string{ModeCStar, ModeTrack, ModeSegment, ModeFIFO} }

func modeBatch(mode string) (sched.Batch, error) {
	switch mode {
	case ModeCStar:
		return sched.Batch{Mode: sched.BatchAuto}, nil
	case ModeSegment:
		return sched.Batch{Mode: sched.BatchSegment}, nil
	case ModeFIFO:
		return sched.Batch{Mode: sched.BatchFIFO}, nil
	case ModeTrack:
		return sched.Batch{Mode: sched.BatchAutoTrack}, nil
	}
	return sched.Batch{}, fmt.Errorf("unknown mode %q (want %v)", mode, LiveModes())
}

// liveRun is one load and one mode of the live experiment.
type liveRun struct {
	cfg  *BatchConfig
	dev  *device.Mem
	load BatchLoad
	mode string
}

// liveResult is what one live run measured, in simulated time.
type liveResult struct {
	batch       int
	reads       []float64 // response times of the counted reads, ms
	writeResp   meanCI    // write request response times, ms
	writeBlocks int64
	writeMs     float64 // disk time spent writing
	busyMs      float64 // disk time spent on anything
	spanMs      float64
}

// noClose keeps the shared memory device open when a volume closes.
type noClose struct{ device.Device }

func (noClose) Close() error { return nil }

// run formats the device, fills LiveFraction of it with data, then
// drives Poisson reads of random data blocks and Poisson writes, held in
// a cache and handed to the volume every PeriodMs as segment-sized
// (512 KiB) write requests, through the volume's scheduler on the virtual
// clock. Every request is a real VLD request: the allocator places the
// writes, the disk model times everything.
func (lr liveRun) run() (*liveResult, error) {
	cfg := lr.cfg
	b, err := modeBatch(lr.mode)
	if err != nil {
		return nil, err
	}
	if err := vld.Format(lr.dev, vld.FormatOptions{Model: cfg.Model, BlockSize: cfg.BlockSize, Kind: "bench"}); err != nil {
		return nil, fmt.Errorf("bench batch: %w", err)
	}
	v, err := vld.Open(noClose{lr.dev}, vld.Options{Batch: b})
	if err != nil {
		return nil, fmt.Errorf("bench batch: %w", err)
	}
	defer v.Close()
	if err := v.Start(); err != nil {
		return nil, err
	}
	d := &liveDriver{v: v, rng: rand.New(rand.NewSource(cfg.Seed)), blk: make([]byte, cfg.BlockSize)}
	if err := d.fill(int(float64(v.FreeBlocks()) * cfg.LiveFraction)); err != nil {
		return nil, err
	}
	res, err := d.drive(lr.load, cfg)
	if err != nil {
		return nil, fmt.Errorf("bench batch: load %s, %s: %w", lr.load.Name, lr.mode, err)
	}
	if err := v.Commit(nil); err != nil {
		return nil, err
	}
	if err := v.Check(d.home); err != nil {
		return nil, fmt.Errorf("bench batch: volume check after load %s, %s: %w", lr.load.Name, lr.mode, err)
	}
	res.batch = v.Stats().BatchBlocks
	return res, nil
}

// liveDriver is the client: it knows where each of its data blocks is.
type liveDriver struct {
	v    *vld.Volume
	rng  *rand.Rand
	blk  []byte     // the content of every block written (contents are not measured)
	home []vld.Addr // data block -> its current address
	buf  []byte
	// pending write requests by tag: which data blocks they carry.
	pending map[uint64][]int
	tag     uint64
}

// fill writes n data blocks and commits them.
func (d *liveDriver) fill(n int) error {
	if n < 1 {
		return fmt.Errorf("bench batch: no room for data blocks")
	}
	chunk := make([][]byte, 64)
	for i := range chunk {
		chunk[i] = d.blk
	}
	for len(d.home) < n {
		addrs, err := d.v.WriteBlocks(chunk[:min(64, n-len(d.home))], vld.WriteOpts{})
		if err != nil {
			return fmt.Errorf("bench batch: filling: %w", err)
		}
		d.home = append(d.home, addrs...)
	}
	return d.v.Commit(nil)
}

// drive runs the arrivals of Warm+Pulses update intervals and serves them.
func (d *liveDriver) drive(load BatchLoad, cfg *BatchConfig) (*liveResult, error) {
	in := cfg.cstar
	s := in.DMs + in.KMs
	readArr := newArrivals(rand.New(rand.NewSource(cfg.Seed+1)), load.RhoR/s, false)
	writeArr := newArrivals(rand.New(rand.NewSource(cfg.Seed+2)), load.RhoW/s, false)
	d.pending = map[uint64][]int{}
	d.buf = make([]byte, cfg.BlockSize)
	t0 := d.v.NowMs()
	from := t0 + float64(cfg.Warm)*cfg.PeriodMs
	end := from + float64(cfg.LivePulses)*cfg.PeriodMs
	nextR, nextW, pulse := t0+readArr.next(), t0+writeArr.next(), t0+cfg.PeriodMs
	st0 := d.v.Stats()
	res := &liveResult{}
	for {
		now := d.v.NowMs()
		idle := d.v.Queued() == 0
		// Hand the volume every request that has arrived; when the disk
		// would idle, the next one (Dispatch waits for it).
		for (nextR <= now || (idle && nextR <= pulse)) && nextR < end {
			if err := d.read(nextR); err != nil {
				return nil, err
			}
			nextR += readArr.next()
			idle = false
		}
		for (pulse <= now || idle) && pulse <= end {
			n := 0
			for ; nextW <= pulse; nextW += writeArr.next() {
				n++
			}
			if err := d.flush(pulse, n); err != nil {
				return nil, err
			}
			pulse += cfg.PeriodMs
			idle = false
		}
		if d.v.Queued() == 0 {
			break
		}
		cs, err := d.v.Dispatch()
		if err != nil {
			return nil, err
		}
		if err := d.complete(cs, from, end, res); err != nil {
			return nil, err
		}
	}
	st1 := d.v.Stats()
	res.writeBlocks = st1.BlocksWritten - st0.BlocksWritten
	res.writeMs = st1.WriteSim.Total() - st0.WriteSim.Total()
	res.busyMs = st1.Sim.Total() - st0.Sim.Total()
	res.spanMs = st1.SimNowMs - t0
	return res, nil
}

// read submits a read of a random data block.
func (d *liveDriver) read(at float64) error {
	a := d.home[d.rng.Intn(len(d.home))]
	return d.v.SubmitRead(a, d.buf, at, 0)
}

// flush commits (so blocks freed by the last interval's overwrites can be
// reused) and hands the interval's n dirty blocks to the volume as
// segment-sized write requests arriving at the pulse.
func (d *liveDriver) flush(at float64, n int) error {
	if err := d.v.Commit(nil); err != nil {
		return err
	}
	seg := max(sched.SegmentBytes/len(d.blk), 1)
	for n > 0 {
		k := min(n, seg)
		n -= k
		ids := make([]int, k)
		data := make([][]byte, k)
		for i := range ids {
			ids[i] = d.rng.Intn(len(d.home))
			data[i] = d.blk
		}
		d.tag++
		d.pending[d.tag] = ids
		if err := d.v.SubmitWrite(data, vld.WriteOpts{}, at, d.tag); err != nil {
			return err
		}
	}
	return nil
}

// complete records finished requests; a finished write moves its data
// blocks to their new homes and frees the old ones.
func (d *liveDriver) complete(cs []vld.Completion, from, end float64, res *liveResult) error {
	for _, c := range cs {
		if c.Err != nil {
			return c.Err
		}
		if !c.Write {
			if c.ArriveMs >= from && c.ArriveMs < end {
				res.reads = append(res.reads, c.DoneMs-c.ArriveMs)
			}
			continue
		}
		if c.ArriveMs >= from && c.ArriveMs < end {
			res.writeResp.add(c.DoneMs - c.ArriveMs)
		}
		for i, id := range d.pending[c.Tag] {
			if err := d.v.Free(d.home[id]); err != nil {
				return err
			}
			d.home[id] = c.Addrs[i]
		}
		delete(d.pending, c.Tag)
	}
	return nil
}

// row turns a live result into a report row.
func (r *liveResult) row(load BatchLoad, mode string, bs int) map[string]any {
	row := map[string]any{
		"experiment": "live", "arrivals": ArrivalsPoisson, "load": load.Name, "mode": mode,
		"rho_r": load.RhoR, "rho_w": load.RhoW, "batch_blocks": r.batch, "reads": len(r.reads),
	}
	if len(r.reads) > 0 {
		var sum float64
		for _, x := range r.reads {
			sum += x
		}
		row["read_mean_ms"] = sum / float64(len(r.reads))
		row["read_p99_ms"] = percentile(r.reads, 0.99)
	}
	if r.writeMs > 0 {
		row["write_mb_s"] = float64(r.writeBlocks) * float64(bs) / r.writeMs / 1e3
	}
	if r.writeResp.n > 0 {
		row["write_mean_ms"] = r.writeResp.mean()
	}
	if r.spanMs > 0 {
		row["util"] = r.busyMs / r.spanMs
	}
	return row
}

// percentile is the q-quantile (nearest rank) of xs; xs is sorted.
func percentile(xs []float64, q float64) float64 {
	sort.Float64s(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
