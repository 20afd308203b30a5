package vld

// request is one read or write waiting in (or taken from) the scheduler.
type request struct {
	seq    uint64  // submission order: ties in arrival time keep it
	arrive float64 // simulated ms
	tag    uint64  // the submitter's name for it (asynchronous API)
	async  bool    // reported by Dispatch; synchronous callers wait for it

	write bool
	addr  Addr     // read: the first block; fixed write: the first block
	bufs  [][]byte // read: the destinations of consecutive blocks
	fixed bool     // write at addr (WriteAt) instead of near the head
	meta  bool
	data  [][]byte // write: the blocks, in order
	sent  int      // write: blocks already written
	addrs []Addr   // write: where each sent block went
	// near and rep are the write's placement hints (WriteOpts.Near,
	// Replaces), for range placement: nil, or one per block.
	near []Addr
	rep  []bool
	// passed counts the range writes served before this one although it
	// was waiting first (place_range_queue.go): bounded, so none starves.
	passed int

	done       bool
	start, end float64 // simulated ms: first service began, last ended
	err        error
}

// blocks is how many blocks of a write are still to go.
func (r *request) blocks() int { return len(r.data) - r.sent }

// before orders requests by arrival, then submission.
func (r *request) before(o *request) bool {
	if r.arrive != o.arrive {
		return r.arrive < o.arrive
	}
	return r.seq < o.seq
}

// queue holds requests in arrival order. Arrivals come almost always in
// order, so insertion scans from the back.
type queue struct {
	items []*request
	head  int
}

func (q *queue) len() int { return len(q.items) - q.head }

func (q *queue) push(r *request) {
	q.items = append(q.items, r)
	for i := len(q.items) - 1; i > q.head && r.before(q.items[i-1]); i-- {
		q.items[i], q.items[i-1] = q.items[i-1], q.items[i]
	}
}

// at is the i-th waiting request (0 = the oldest).
func (q *queue) at(i int) *request { return q.items[q.head+i] }

func (q *queue) peek() *request {
	if q.len() == 0 {
		return nil
	}
	return q.items[q.head]
}

func (q *queue) pop() *request {
	r := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head > 64 && q.head*2 > len(q.items) { // reclaim the consumed prefix
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	return r
}

// piece is the next n blocks of one write request.
type piece struct {
	r *request
	n int
}

// unit is what the disk does next: one read, or one write batch made of
// pieces of consecutive queued writes, in order.
type unit struct {
	read   *request
	pieces []piece
}

// blocks is the size of a write unit.
func (u unit) blocks() int {
	n := 0
	for _, p := range u.pieces {
		n += p.n
	}
	return n
}

// scheduler is the request queues and the policy that empties them. It
// does no I/O (Volume.dispatchLocked does); it is guarded by Volume.mu.
type scheduler struct {
	policy   Batch
	batch    int // blocks per write batch; 0 = whole requests (FIFO)
	reads    queue
	writes   queue
	seq      uint64
	reserved int64 // blocks of queued eager writes, held back from placement checks
}

func newScheduler(p Batch, batch int) *scheduler {
	return &scheduler{policy: p, batch: batch}
}

// direct reports that a request arriving now would be served at once and
// whole, exactly as the VLD did before it had queues: FIFO with nothing
// waiting. Synchronous calls then skip the queues.
func (s *scheduler) direct() bool {
	return s.batch == 0 && s.reads.len() == 0 && s.writes.len() == 0
}

func (s *scheduler) queued() int { return s.reads.len() + s.writes.len() }

func (s *scheduler) add(r *request) {
	s.seq++
	r.seq = s.seq
	if r.write {
		if !r.fixed {
			s.reserved += int64(len(r.data))
		}
		s.writes.push(r)
		return
	}
	s.reads.push(r)
}

// earliest is the first arrival time among waiting requests.
func (s *scheduler) earliest() (float64, bool) {
	r, w := s.reads.peek(), s.writes.peek()
	switch {
	case r == nil && w == nil:
		return 0, false
	case r == nil:
		return w.arrive, true
	case w == nil || r.before(w):
		return r.arrive, true
	}
	return w.arrive, true
}

// next picks the unit to serve at time now among requests that have
// arrived by then. FIFO: the oldest request, whole. Batching: the oldest
// read if any read waits, else the next write batch.
func (s *scheduler) next(now float64) (unit, bool) {
	r, w := s.reads.peek(), s.writes.peek()
	if r != nil && r.arrive > now {
		r = nil
	}
	if w != nil && w.arrive > now {
		w = nil
	}
	switch {
	case r == nil && w == nil:
		return unit{}, false
	case s.batch == 0 && w != nil && (r == nil || w.before(r)):
		return unit{pieces: []piece{{w, w.blocks()}}}, true
	case r != nil:
		return unit{read: r}, true
	}
	return s.writeBatch(now), true
}

// writeBatch takes up to batch blocks from the head of the write queue.
// A request that fits in a batch is never split: if it does not fit in
// what is left of this one, the batch ends short. A larger request is cut
// into batch-sized pieces that leave in order. A fixed-address write
// (WriteAt) is a batch of its own, since its blocks cannot join a run
// placed near the head.
func (s *scheduler) writeBatch(now float64) unit {
	var u unit
	room := s.batch
	for i := 0; i < s.writes.len() && room > 0; i++ {
		w := s.writes.at(i)
		if w.arrive > now || (w.fixed && len(u.pieces) > 0) {
			break
		}
		n := w.blocks()
		if n > room && n <= s.batch && len(u.pieces) > 0 {
			break
		}
		n = min(n, room)
		u.pieces = append(u.pieces, piece{w, n})
		room -= n
		if w.fixed {
			break
		}
	}
	return u
}

// finish removes served requests from the heads of the queues.
func (s *scheduler) finish() {
	for s.reads.len() > 0 && s.reads.peek().done {
		s.reads.pop()
	}
	for s.writes.len() > 0 && s.writes.peek().done {
		s.writes.pop()
	}
}

// failAll ends every waiting request with err.
func (s *scheduler) failAll(err error) []*request {
	var out []*request
	for _, q := range []*queue{&s.reads, &s.writes} {
		for q.len() > 0 {
			r := q.pop()
			r.done, r.err = true, err
			out = append(out, r)
		}
	}
	s.reserved = 0
	return out
}
