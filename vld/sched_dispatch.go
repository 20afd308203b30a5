package vld

import (
	"fmt"
	"math"

	"github.com/vlfs/vlfs/vld/sched"
)

// request is one read or write waiting in (or taken from) the scheduler:
// the scheduler's part (arrival, size, progress) and what serving it
// needs.
type request struct {
	sched.Request
	tag   uint64 // the submitter's name for it (asynchronous API)
	async bool   // reported by Dispatch; synchronous callers wait for it

	addr  Addr     // read: the first block; fixed write: the first block
	bufs  [][]byte // read: the destinations of consecutive blocks
	meta  bool
	data  [][]byte // write: the blocks, in order
	addrs []Addr   // write: where each sent block went
	// near and rep are the write's placement hints (WriteOpts.Near,
	// Replaces), for range placement: nil, or one per block.
	near []Addr
	rep  []bool
	// passed counts the range writes served before this one although it
	// was waiting first (sched_range.go): bounded, so none starves.
	passed int

	start, end float64 // simulated ms: first service began, last ended
	err        error
}

// unit is what the disk does next, as the scheduler picked it.
type unit = sched.Unit[*request]

// Completion reports one request of the asynchronous API finished.
type Completion struct {
	Tag      uint64
	Write    bool
	Addr     Addr   // a read's block
	Addrs    []Addr // where a write's blocks went, in order
	ArriveMs float64
	StartMs  float64 // its (first) service began: ArriveMs + queueing
	DoneMs   float64 // its (last) service ended: DoneMs - ArriveMs is the response time
	Err      error
}

// SubmitRead queues a read of block a into buf arriving at atMs on the
// simulated clock. It happens when Dispatch reaches it; buf must not be
// touched until then. For event-driven experiments on the virtual clock.
func (v *Volume) SubmitRead(a Addr, buf []byte, atMs float64, tag uint64) error {
	if len(buf) != v.bs {
		return fmt.Errorf("submit read %d: buffer %d bytes, block size %d: %w", a, len(buf), v.bs, ErrInvalid)
	}
	if err := v.checkAddr(a); err != nil {
		return fmt.Errorf("submit read: %w", err)
	}
	if err := checkArrival(atMs); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return err
	}
	v.sched.Add(&request{Request: sched.Request{Arrive: atMs}, tag: tag, async: true, addr: a, bufs: [][]byte{buf}})
	return nil
}

// SubmitWrite queues an eager write of data arriving at atMs: it is placed
// near the head when its batch is dispatched, its blocks in order. Space
// is checked (and held) now.
func (v *Volume) SubmitWrite(data [][]byte, o WriteOpts, atMs float64, tag uint64) error {
	if len(data) == 0 {
		return fmt.Errorf("submit write: no blocks: %w", ErrInvalid)
	}
	for i, d := range data {
		if len(d) != v.bs {
			return fmt.Errorf("submit write block %d: %d bytes, block size %d: %w", i, len(d), v.bs, ErrInvalid)
		}
	}
	if err := checkArrival(atMs); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.writableLocked(); err != nil {
		return err
	}
	if err := v.spaceLocked(len(data), o); err != nil {
		return err
	}
	r := &request{Request: sched.Request{Arrive: atMs, Write: true, Blocks: len(data)}, tag: tag, async: true, meta: o.Meta, data: data}
	r.near, r.rep = hintsOf(o, len(data))
	v.sched.Add(r)
	return nil
}

func checkArrival(atMs float64) error {
	if !(atMs >= 0) || math.IsInf(atMs, 0) {
		return fmt.Errorf("arrival time %v ms: must be finite and >= 0: %w", atMs, ErrInvalid)
	}
	return nil
}

// Queued is the number of requests waiting in the scheduler.
func (v *Volume) Queued() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.sched.Queued()
}

// Dispatch serves the next unit of work the policy picks: a read or a
// write batch. If nothing has arrived yet it first lets the disk idle
// until the earliest arrival. It returns the asynchronous requests that
// finished (none if nothing was queued). An error means the volume can no
// longer serve anything; every waiting request then ends with it.
func (v *Volume) Dispatch() ([]Completion, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if err := v.usableLocked(true); err != nil {
		return completions(v.failAllLocked(err)), err
	}
	served, err := v.dispatchLocked()
	return completions(served), err
}

func completions(rs []*request) []Completion {
	var out []Completion
	for _, r := range rs {
		if !r.async {
			continue
		}
		c := Completion{Tag: r.tag, Write: r.Write, Addr: r.addr, ArriveMs: r.Arrive, StartMs: r.start, DoneMs: r.end, Err: r.err}
		if r.Write {
			c.Addr, c.Addrs = 0, r.addrs
		}
		out = append(out, c)
	}
	return out
}

// failAllLocked ends every waiting request with err.
func (v *Volume) failAllLocked(err error) []*request {
	rs := v.sched.Drain()
	for _, r := range rs {
		r.err = err
	}
	return rs
}

// dispatchLocked serves one unit and returns the requests it finished.
func (v *Volume) dispatchLocked() ([]*request, error) {
	at, ok := v.sched.Earliest()
	if !ok {
		return nil, nil
	}
	v.m.syncWall()
	if at > v.m.now {
		v.m.idle(at - v.m.now) // nothing has arrived: the disk waits
	}
	u, ok := v.sched.Next(v.m.now)
	if !ok {
		return nil, nil
	}
	if u.IsRead {
		return v.serveReadLocked(u.Read)
	}
	if v.place.kind == PlaceRange {
		u = v.pickRangeWriteLocked(u)
	}
	return v.serveWritesLocked(u)
}

// serveReadLocked does one queued read.
func (v *Volume) serveReadLocked(r *request) ([]*request, error) {
	r.start = v.m.now
	r.err = v.readRunLocked(r.addr, r.bufs)
	r.end, r.Done = v.m.now, true
	v.sched.Finish()
	return []*request{r}, nil
}

// serveWritesLocked writes one batch: its blocks, piece after piece, are
// placed together as few contiguous runs as possible near the head (or at
// a fixed write's address) and written in order.
func (v *Volume) serveWritesLocked(u unit) ([]*request, error) {
	n := u.Blocks()
	blocks := make([][]byte, 0, n)
	for _, p := range u.Pieces {
		blocks = append(blocks, p.R.data[p.R.Sent:p.R.Sent+p.N]...)
	}
	start := v.m.now
	var runs []run
	if first := u.Pieces[0].R; first.Fixed {
		runs = []run{{Start: int64(first.addr) + int64(first.Sent), N: n}}
	} else {
		v.hintLocked(batchHints(u), n)
		var err error
		if runs, err = v.placeEagerLocked(n); err != nil {
			return v.failUnitLocked(u, err), nil
		}
		v.sched.Unreserve(n)
	}
	addrs := runAddrs(runs)
	i := 0
	for _, r := range runs {
		if err := v.writeRunLocked(r, blocks[i:i+r.N]); err != nil {
			return v.failAllLocked(err), err
		}
		i += r.N
	}
	var served []*request
	i = 0
	for _, p := range u.Pieces {
		w := p.R
		if w.Sent == 0 {
			w.start = start
		}
		for j := 0; j < p.N; j++ {
			v.written[addrs[i]] = blockCRC(w.data[w.Sent+j])
			w.addrs = append(w.addrs, addrs[i])
			i++
		}
		w.Sent += p.N
		if w.Left() == 0 {
			w.end, w.Done = v.m.now, true
			served = append(served, w)
		}
	}
	v.sched.Finish()
	return served, nil
}

// batchHints joins the placement hints of a batch's pieces block by block
// (a piece without hints contributes none: zero, no home), so that a policy
// that places by hints (in place) places each block of a batch of several
// requests as it would the requests one by one. Eager placement ignores
// them.
func batchHints(u unit) WriteOpts {
	if len(u.Pieces) == 1 {
		p := u.Pieces[0]
		return WriteOpts{Near: sliceOf(p.R.near, p.R.Sent, p.N), Replaces: sliceOf(p.R.rep, p.R.Sent, p.N)}
	}
	var near []Addr
	var rep []bool
	hinted := false
	for _, p := range u.Pieces {
		pn, pr := sliceOf(p.R.near, p.R.Sent, p.N), sliceOf(p.R.rep, p.R.Sent, p.N)
		hinted = hinted || pn != nil
		if pn == nil {
			pn = make([]Addr, p.N)
		}
		if pr == nil {
			pr = make([]bool, p.N)
		}
		near, rep = append(near, pn...), append(rep, pr...)
	}
	if !hinted {
		return WriteOpts{}
	}
	return WriteOpts{Near: near, Replaces: rep}
}

// failUnitLocked ends the requests of a batch that could not be placed.
// Blocks that earlier batches wrote for them are released as Free would.
func (v *Volume) failUnitLocked(u unit, err error) []*request {
	var out []*request
	for _, p := range u.Pieces {
		w := p.R
		if !w.Fixed {
			v.sched.Unreserve(w.Left())
		}
		for _, a := range w.addrs {
			v.releaseLocked(a)
		}
		w.addrs, w.err, w.Done, w.end = nil, fmt.Errorf("write batch: %w", err), true, v.m.now
		out = append(out, w)
	}
	v.sched.Finish()
	return out
}

// releaseLocked frees a block this volume wrote for a request that failed.
func (v *Volume) releaseLocked(a Addr) {
	if _, ok := v.written[a]; ok {
		delete(v.written, a)
		v.alloc.MarkFree(int64(a))
		return
	}
	v.pending[a] = true // a commit may already cover it
}

// writableLocked checks that writes may be issued now.
func (v *Volume) writableLocked() error {
	if err := v.usableLocked(true); err != nil {
		return err
	}
	if v.opts.ReadOnly {
		return ErrReadOnly
	}
	return nil
}

// spaceLocked checks that n more eager blocks fit beside those already
// queued: data writes may not touch the reserve.
func (v *Volume) spaceLocked(n int, o WriteOpts) error {
	need := int64(n) + v.sched.Reserved()
	if (!o.Meta && v.alloc.Free()-need < v.reserve) || v.alloc.Free() < need {
		return fmt.Errorf("writing %d blocks with %d free (%d reserved, %d queued): %w", n, v.alloc.Free(), v.reserve, v.sched.Reserved(), ErrNoSpace)
	}
	return nil
}

// waitLocked serves units until r is done: the caller drives the disk,
// serving whatever the policy picks, its own request included. Between
// units it lets go of mu so that other callers can queue (a read that
// comes in then goes before the next write batch).
//
// On the real-time clock a unit's service time is slept without mu: the
// disk is busy until the simulated time its last unit ends, and a caller
// that finds it busy waits, with mu released, for the next unit to pick.
// So a unit is picked only when the disk is free, from everything queued
// by then (the policy sees the mount's real queue), and no other use of
// the volume (placing a gathered write, freeing a block, the counters)
// waits for the device.
func (v *Volume) waitLocked(r *request) error {
	v.sched.Add(r)
	for !r.Done {
		if err := v.usableLocked(true); err != nil {
			v.failAllLocked(err)
			break
		}
		if v.waitBusyLocked(v.m.now) {
			continue
		}
		v.m.deferSleep = true
		_, err := v.dispatchLocked()
		v.m.deferSleep = false
		if err != nil || r.Done {
			break
		}
		v.mu.Unlock()
		v.mu.Lock()
	}
	v.waitBusyLocked(r.end) // until the request's own service has ended
	return r.err
}

// waitBusyLocked sleeps, with mu released, until the wall-clock moment of
// simulated time ms on the real-time clock, if that is still ahead. It
// says whether it slept.
func (v *Volume) waitBusyLocked(ms float64) bool {
	d := v.m.wallUntil(ms)
	if d <= 0 {
		return false
	}
	sleep := v.m.sleep
	v.mu.Unlock()
	sleep(d)
	v.mu.Lock()
	return true
}

// readQueuedLocked is a read of consecutive blocks through the queues.
func (v *Volume) readQueuedLocked(a Addr, bufs [][]byte) error {
	v.m.syncWall()
	return v.waitLocked(&request{Request: sched.Request{Arrive: v.m.now}, addr: a, bufs: bufs})
}

// writeQueuedLocked is WriteBlocks through the queues.
func (v *Volume) writeQueuedLocked(data [][]byte, o WriteOpts) ([]Addr, error) {
	if err := v.spaceLocked(len(data), o); err != nil {
		return nil, err
	}
	v.m.syncWall()
	r := &request{Request: sched.Request{Arrive: v.m.now, Write: true, Blocks: len(data)}, meta: o.Meta, data: data}
	r.near, r.rep = hintsOf(o, len(data))
	if err := v.waitLocked(r); err != nil {
		return nil, err
	}
	return r.addrs, nil
}

// writeAtQueuedLocked is WriteAt through the queues.
func (v *Volume) writeAtQueuedLocked(a Addr, data [][]byte) error {
	v.m.syncWall()
	return v.waitLocked(&request{Request: sched.Request{Arrive: v.m.now, Write: true, Fixed: true, Blocks: len(data)}, addr: a, data: data})
}
