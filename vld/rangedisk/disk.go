package rangedisk

import (
	"fmt"
	"slices"

	"github.com/vlfs/vlfs/vld/disk"
)

// Disk is a simulated disk with a command queue and range writes. It is not
// safe for concurrent use (see the package doc).
type Disk struct {
	l     *disk.Layout
	cfg   Config
	now   float64
	head  disk.Head
	queue []*pending // submitted, not yet chosen, in tag order
	next  *decision  // chosen at the last completion, not yet served
	tag   uint64
	epoch uint64 // barriers issued
	res   reservations
	store map[int64][]byte
	stats Stats
	hrs   []hrsPiece // scratch for HRS decisions
}

// decision is a request chosen to be served next.
type decision struct {
	p    *pending
	addr int64
	est  int
	dead bool // a range write with no target left: completes with ErrNoTarget
}

// New builds a Disk over layout l.
func New(l *disk.Layout, cfg Config) (*Disk, error) {
	if cfg.QueueDepth == 0 {
		cfg.QueueDepth = 1
	}
	if cfg.QueueDepth < 0 || cfg.ECSTargets < 0 {
		return nil, fmt.Errorf("%w: queue depth %d, ECS targets %d", ErrBadRequest, cfg.QueueDepth, cfg.ECSTargets)
	}
	if cfg.Scheduler != HRS && cfg.Scheduler != ECS {
		return nil, fmt.Errorf("%w: scheduler %v", ErrBadRequest, cfg.Scheduler)
	}
	d := &Disk{l: l, cfg: cfg, now: cfg.StartMs, head: cfg.Head, res: newReservations()}
	if cfg.KeepData {
		d.store = make(map[int64][]byte)
	}
	return d, nil
}

// Layout is the disk's geometry.
func (d *Disk) Layout() *disk.Layout { return d.l }

// Now is the simulated clock (ms).
func (d *Disk) Now() float64 { return d.now }

// Head is where the arm is.
func (d *Disk) Head() disk.Head { return d.head }

// Idle lets ms of simulated time pass with nothing to serve (host think
// time). A request chosen at the last completion is still served next.
func (d *Disk) Idle(ms float64) {
	if ms > 0 {
		d.now += ms
	}
}

// Outstanding counts submitted requests not yet completed.
func (d *Disk) Outstanding() int {
	n := len(d.queue)
	if d.next != nil {
		n++
	}
	return n
}

// Stats returns the counters.
func (d *Disk) Stats() Stats { return d.stats }

// Reserved counts the blocks the disk currently remembers as placed.
func (d *Disk) Reserved() int { return d.res.len() }

// Submit queues r at the current simulated time and returns its tag. Bad
// input is rejected here and nothing is queued.
func (d *Disk) Submit(r Request) (uint64, error) {
	if d.Outstanding() >= d.cfg.QueueDepth {
		return 0, fmt.Errorf("%w: %d outstanding", ErrQueueFull, d.Outstanding())
	}
	align, runs, err := validate(d.l, r)
	if err != nil {
		return 0, err
	}
	d.tag++
	p := &pending{tag: d.tag, req: r, submitMs: d.now, epoch: d.epoch, runs: runs}
	p.req.Align = align
	if r.Data != nil {
		p.req.Data = cloneBlocks(r.Data)
	}
	if r.Kind == RangeWrite {
		d.expand(p)
	}
	d.queue = append(d.queue, p)
	return p.tag, nil
}

// expand precomputes what the scheduler needs for a range write.
func (d *Disk) expand(p *pending) {
	if d.cfg.Scheduler == ECS {
		p.cands = expandTargets(p.runs, p.req.Blocks, p.req.Align, d.cfg.ECSTargets)
		return
	}
	p.pieces = splitPieces(d.l, p.runs, p.req.Blocks, p.req.Align)
}

// Barrier tells the disk that every request submitted from now on accounts
// for the placements of every range write submitted before (section 3.1.2).
// Those placements are forgotten once the pre-barrier writes complete.
func (d *Disk) Barrier() {
	d.epoch++
	d.forget()
}

// Step serves one request and reports it; false when nothing is queued.
// The request served is the one chosen when the previous request completed
// or, if the queue was empty then, the best of those queued now.
func (d *Disk) Step() (Completion, bool) {
	if d.next == nil {
		d.next = d.decide()
	}
	dec := d.next
	if dec == nil {
		return Completion{}, false
	}
	d.next = nil
	c := d.serve(dec)
	d.forget()
	d.next = d.decide() // the choice is made at completion, before any reply arrives
	return c, true
}

// Do submits r and serves requests until r completes; it returns r's
// completion. With a queue of one this is a synchronous disk.
func (d *Disk) Do(r Request) (Completion, error) {
	tag, err := d.Submit(r)
	if err != nil {
		return Completion{}, err
	}
	for {
		c, ok := d.Step()
		if !ok {
			return Completion{}, fmt.Errorf("%w: request %d vanished from the queue", ErrBadRequest, tag)
		}
		if c.Tag == tag {
			return c, c.Err
		}
	}
}

// Drain serves everything outstanding and returns the completions in order.
func (d *Disk) Drain() []Completion {
	var out []Completion
	for {
		c, ok := d.Step()
		if !ok {
			return out
		}
		out = append(out, c)
	}
}

// serve runs one chosen request on the simulated disk.
func (d *Disk) serve(dec *decision) Completion {
	p := dec.p
	c := Completion{Tag: p.tag, Kind: p.req.Kind, Addr: dec.addr, Blocks: p.req.Blocks,
		SubmitMs: p.submitMs, StartMs: d.now, EndMs: d.now, Estimates: dec.est}
	d.stats.Completed++
	if dec.dead {
		c.Err = fmt.Errorf("range write %d of %d blocks: %w", p.tag, p.req.Blocks, ErrNoTarget)
		d.stats.NoTarget++
		return c
	}
	a, h := d.l.Service(d.head, d.now, dec.addr, p.req.Blocks, p.write())
	d.now += a.TotalMs()
	d.head = h
	c.Access, c.EndMs = a, d.now
	d.account(p.req.Kind, a)
	c.Data = d.keep(p, dec.addr)
	return c
}

// account adds one served request to the counters.
func (d *Disk) account(k Kind, a disk.Access) {
	switch k {
	case Read:
		d.stats.Reads++
	case Write:
		d.stats.Writes++
	case RangeWrite:
		d.stats.Ranges++
	}
	d.stats.Sim.OverheadMs += a.OverheadMs
	d.stats.Sim.SeekMs += a.SeekMs
	d.stats.Sim.HeadSwitchMs += a.HeadSwitchMs
	d.stats.Sim.RotationMs += a.RotationMs
	d.stats.Sim.TransferMs += a.TransferMs
}

// keep stores written data or fetches read data when the disk keeps data.
func (d *Disk) keep(p *pending, addr int64) [][]byte {
	if d.store == nil {
		return nil
	}
	if p.req.Kind != Read {
		for i, b := range p.req.Data {
			d.store[addr+int64(i)] = b
		}
		return nil
	}
	out := make([][]byte, p.req.Blocks)
	for i := range out {
		out[i] = slices.Clone(d.store[addr+int64(i)])
		if out[i] == nil {
			out[i] = make([]byte, d.l.BlockSize())
		}
	}
	return out
}

func cloneBlocks(in [][]byte) [][]byte {
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = slices.Clone(b)
	}
	return out
}
