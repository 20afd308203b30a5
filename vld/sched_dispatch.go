package vld

import (
	"fmt"
	"math"
)

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
	v.sched.add(&request{arrive: atMs, tag: tag, async: true, addr: a, bufs: [][]byte{buf}})
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
	r := &request{arrive: atMs, tag: tag, async: true, write: true, meta: o.Meta, data: data}
	r.near, r.rep = hintsOf(o, len(data))
	v.sched.add(r)
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
	return v.sched.queued()
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
		return completions(v.sched.failAll(err)), err
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
		c := Completion{Tag: r.tag, Write: r.write, Addr: r.addr, ArriveMs: r.arrive, StartMs: r.start, DoneMs: r.end, Err: r.err}
		if r.write {
			c.Addr, c.Addrs = 0, r.addrs
		}
		out = append(out, c)
	}
	return out
}

// dispatchLocked serves one unit and returns the requests it finished.
func (v *Volume) dispatchLocked() ([]*request, error) {
	at, ok := v.sched.earliest()
	if !ok {
		return nil, nil
	}
	v.m.syncWall()
	if at > v.m.now {
		v.m.idle(at - v.m.now) // nothing has arrived: the disk waits
	}
	u, ok := v.sched.next(v.m.now)
	if !ok {
		return nil, nil
	}
	if u.read != nil {
		return v.serveReadLocked(u.read)
	}
	if v.place.policy == PlaceRange {
		u = v.pickRangeWriteLocked(u)
	}
	return v.serveWritesLocked(u)
}

// serveReadLocked does one queued read.
func (v *Volume) serveReadLocked(r *request) ([]*request, error) {
	r.start = v.m.now
	r.err = v.readRunLocked(r.addr, r.bufs)
	r.end, r.done = v.m.now, true
	v.sched.finish()
	return []*request{r}, nil
}

// serveWritesLocked writes one batch: its blocks, piece after piece, are
// placed together as few contiguous runs as possible near the head (or at
// a fixed write's address) and written in order.
func (v *Volume) serveWritesLocked(u unit) ([]*request, error) {
	n := u.blocks()
	blocks := make([][]byte, 0, n)
	for _, p := range u.pieces {
		blocks = append(blocks, p.r.data[p.r.sent:p.r.sent+p.n]...)
	}
	start := v.m.now
	var runs []run
	if first := u.pieces[0].r; first.fixed {
		runs = []run{{start: int64(first.addr) + int64(first.sent), n: n}}
	} else {
		if len(u.pieces) == 1 { // a whole request (FIFO): its hints apply
			p := u.pieces[0]
			v.hintLocked(WriteOpts{Near: sliceOf(p.r.near, p.r.sent, p.n), Replaces: sliceOf(p.r.rep, p.r.sent, p.n)}, p.n)
		}
		var err error
		if runs, err = v.placeEagerLocked(n); err != nil {
			return v.failUnitLocked(u, err), nil
		}
		v.sched.reserved -= int64(n)
	}
	addrs := runAddrs(runs)
	i := 0
	for _, r := range runs {
		if err := v.writeRunLocked(r, blocks[i:i+r.n]); err != nil {
			return v.sched.failAll(err), err
		}
		i += r.n
	}
	var served []*request
	i = 0
	for _, p := range u.pieces {
		w := p.r
		if w.sent == 0 {
			w.start = start
		}
		for j := 0; j < p.n; j++ {
			v.written[addrs[i]] = blockCRC(w.data[w.sent+j])
			w.addrs = append(w.addrs, addrs[i])
			i++
		}
		w.sent += p.n
		if w.blocks() == 0 {
			w.end, w.done = v.m.now, true
			served = append(served, w)
		}
	}
	v.sched.finish()
	return served, nil
}

// failUnitLocked ends the requests of a batch that could not be placed.
// Blocks that earlier batches wrote for them are released as Free would.
func (v *Volume) failUnitLocked(u unit, err error) []*request {
	var out []*request
	for _, p := range u.pieces {
		w := p.r
		if !w.fixed {
			v.sched.reserved -= int64(w.blocks())
		}
		for _, a := range w.addrs {
			v.releaseLocked(a)
		}
		w.addrs, w.err, w.done, w.end = nil, fmt.Errorf("write batch: %w", err), true, v.m.now
		out = append(out, w)
	}
	v.sched.finish()
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
	need := int64(n) + v.sched.reserved
	if (!o.Meta && v.alloc.Free()-need < v.reserve) || v.alloc.Free() < need {
		return fmt.Errorf("writing %d blocks with %d free (%d reserved, %d queued): %w", n, v.alloc.Free(), v.reserve, v.sched.reserved, ErrNoSpace)
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
	v.sched.add(r)
	for !r.done {
		if err := v.usableLocked(true); err != nil {
			v.sched.failAll(err)
			break
		}
		if v.waitBusyLocked(v.m.now) {
			continue
		}
		v.m.deferSleep = true
		_, err := v.dispatchLocked()
		v.m.deferSleep = false
		if err != nil || r.done {
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
	return v.waitLocked(&request{arrive: v.m.now, addr: a, bufs: bufs})
}

// writeQueuedLocked is WriteBlocks through the queues.
func (v *Volume) writeQueuedLocked(data [][]byte, o WriteOpts) ([]Addr, error) {
	if err := v.spaceLocked(len(data), o); err != nil {
		return nil, err
	}
	v.m.syncWall()
	r := &request{arrive: v.m.now, write: true, meta: o.Meta, data: data}
	r.near, r.rep = hintsOf(o, len(data))
	if err := v.waitLocked(r); err != nil {
		return nil, err
	}
	return r.addrs, nil
}

// writeAtQueuedLocked is WriteAt through the queues.
func (v *Volume) writeAtQueuedLocked(a Addr, data [][]byte) error {
	v.m.syncWall()
	return v.waitLocked(&request{arrive: v.m.now, write: true, fixed: true, addr: a, data: data})
}
