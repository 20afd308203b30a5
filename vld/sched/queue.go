package sched

// Request is the scheduler's part of one read or write waiting in (or taken
// from) the queues: what the policy looks at. The volume's request embeds
// it and adds what serving needs (addresses, buffers, hints, results); the
// scheduler holds the volume's requests as an Item and reaches this part
// through Req.
type Request struct {
	seq    uint64  // submission order: ties in arrival time keep it
	Arrive float64 // simulated ms

	Write  bool
	Fixed  bool // a write at a given address (Volume.WriteAt) instead of near the head
	Blocks int  // write: its blocks, in all
	Sent   int  // write: blocks already written
	Done   bool // served (or failed): Finish drops it from the queue's head
}

// Req is r itself: a *Request is an Item, and so is a pointer to any
// struct that embeds a Request.
func (r *Request) Req() *Request { return r }

// Left is how many blocks of a write are still to go.
func (r *Request) Left() int { return r.Blocks - r.Sent }

// Before orders requests by arrival, then submission.
func (r *Request) Before(o *Request) bool {
	if r.Arrive != o.Arrive {
		return r.Arrive < o.Arrive
	}
	return r.seq < o.seq
}

// Item is what a Scheduler queues: a request of the caller's that carries
// a Request (by embedding one).
type Item interface {
	Req() *Request
}

// queue holds requests in arrival order. Arrivals come almost always in
// order, so insertion scans from the back.
type queue[T Item] struct {
	items []T
	head  int
}

func (q *queue[T]) len() int { return len(q.items) - q.head }

func (q *queue[T]) push(r T) {
	q.items = append(q.items, r)
	for i := len(q.items) - 1; i > q.head && r.Req().Before(q.items[i-1].Req()); i-- {
		q.items[i], q.items[i-1] = q.items[i-1], q.items[i]
	}
}

// at is the i-th waiting request (0 = the oldest).
func (q *queue[T]) at(i int) T { return q.items[q.head+i] }

func (q *queue[T]) peek() (T, bool) {
	if q.len() == 0 {
		var zero T
		return zero, false
	}
	return q.items[q.head], true
}

func (q *queue[T]) pop() T {
	r := q.items[q.head]
	var zero T
	q.items[q.head] = zero
	q.head++
	if q.head > 64 && q.head*2 > len(q.items) { // reclaim the consumed prefix
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	return r
}

// Piece is the next N blocks of one write request.
type Piece[T Item] struct {
	R T
	N int
}

// Unit is what the disk does next: one read (IsRead, Read), or one write
// batch made of pieces of consecutive queued writes, in order.
type Unit[T Item] struct {
	IsRead bool
	Read   T
	Pieces []Piece[T]
}

// Blocks is the size of a write unit.
func (u Unit[T]) Blocks() int {
	n := 0
	for _, p := range u.Pieces {
		n += p.N
	}
	return n
}

// Scheduler is the request queues and the policy that empties them. It
// does no I/O (the volume's dispatchLocked does) and is not safe for
// concurrent use: the volume guards it with its mu.
type Scheduler[T Item] struct {
	policy   Batch
	batch    int // blocks per write batch; 0 = whole requests (FIFO)
	reads    queue[T]
	writes   queue[T]
	seq      uint64
	reserved int64 // blocks of queued eager writes, held back from placement checks
}

// New is an empty scheduler for policy p, whose batch size in blocks is
// batch (BatchBlocksFor; 0 for FIFO).
func New[T Item](p Batch, batch int) *Scheduler[T] {
	return &Scheduler[T]{policy: p, batch: batch}
}

// Policy is the policy the scheduler was made with.
func (s *Scheduler[T]) Policy() Batch { return s.policy }

// BatchBlocks is the batch size in force, in blocks; 0 for FIFO.
func (s *Scheduler[T]) BatchBlocks() int { return s.batch }

// Direct reports that a request arriving now would be served at once and
// whole, exactly as the VLD did before it had queues: FIFO with nothing
// waiting. Synchronous calls then skip the queues.
func (s *Scheduler[T]) Direct() bool {
	return s.batch == 0 && s.reads.len() == 0 && s.writes.len() == 0
}

// Queued is the number of requests waiting.
func (s *Scheduler[T]) Queued() int { return s.reads.len() + s.writes.len() }

// Reserved is the number of blocks of queued eager (not Fixed) writes not
// yet placed: the volume holds them back from its space checks.
func (s *Scheduler[T]) Reserved() int64 { return s.reserved }

// Unreserve gives back n reserved blocks, placed or failed.
func (s *Scheduler[T]) Unreserve(n int) { s.reserved -= int64(n) }

// Add queues r. An eager write's blocks are reserved until Unreserve.
func (s *Scheduler[T]) Add(r T) {
	q := r.Req()
	s.seq++
	q.seq = s.seq
	if q.Write {
		if !q.Fixed {
			s.reserved += int64(q.Blocks)
		}
		s.writes.push(r)
		return
	}
	s.reads.push(r)
}

// Writes is the number of writes waiting, for Write.
func (s *Scheduler[T]) Writes() int { return s.writes.len() }

// Write is the i-th waiting write (0 = the oldest): served requests stay
// at the head of the queue until Finish, with Done set.
func (s *Scheduler[T]) Write(i int) T { return s.writes.at(i) }

// Earliest is the first arrival time among waiting requests.
func (s *Scheduler[T]) Earliest() (float64, bool) {
	r, rok := s.reads.peek()
	w, wok := s.writes.peek()
	switch {
	case !rok && !wok:
		return 0, false
	case !rok:
		return w.Req().Arrive, true
	case !wok || r.Req().Before(w.Req()):
		return r.Req().Arrive, true
	}
	return w.Req().Arrive, true
}

// Next picks the unit to serve at time now among requests that have
// arrived by then. FIFO: the oldest request, whole. Batching: the oldest
// read if any read waits, else the next write batch.
func (s *Scheduler[T]) Next(now float64) (Unit[T], bool) {
	r, rok := s.reads.peek()
	w, wok := s.writes.peek()
	if rok && r.Req().Arrive > now {
		rok = false
	}
	if wok && w.Req().Arrive > now {
		wok = false
	}
	switch {
	case !rok && !wok:
		return Unit[T]{}, false
	case s.batch == 0 && wok && (!rok || w.Req().Before(r.Req())):
		return Unit[T]{Pieces: []Piece[T]{{w, w.Req().Left()}}}, true
	case rok:
		return Unit[T]{IsRead: true, Read: r}, true
	}
	return s.writeBatch(now), true
}

// writeBatch takes up to batch blocks from the head of the write queue.
// A request that fits in a batch is never split: if it does not fit in
// what is left of this one, the batch ends short. A larger request is cut
// into batch-sized pieces that leave in order. A fixed-address write
// (Volume.WriteAt) is a batch of its own, since its blocks cannot join a run
// placed near the head.
func (s *Scheduler[T]) writeBatch(now float64) Unit[T] {
	var u Unit[T]
	room := s.batch
	for i := 0; i < s.writes.len() && room > 0; i++ {
		w := s.writes.at(i)
		q := w.Req()
		if q.Arrive > now || (q.Fixed && len(u.Pieces) > 0) {
			break
		}
		n := q.Left()
		if n > room && n <= s.batch && len(u.Pieces) > 0 {
			break
		}
		n = min(n, room)
		u.Pieces = append(u.Pieces, Piece[T]{w, n})
		room -= n
		if q.Fixed {
			break
		}
	}
	return u
}

// Finish removes served (Done) requests from the heads of the queues.
func (s *Scheduler[T]) Finish() {
	for s.reads.len() > 0 && s.reads.at(0).Req().Done {
		s.reads.pop()
	}
	for s.writes.len() > 0 && s.writes.at(0).Req().Done {
		s.writes.pop()
	}
}

// Drain removes every waiting request, reads first, marks it Done and
// returns it (the caller gives each its error); nothing stays reserved.
func (s *Scheduler[T]) Drain() []T {
	var out []T
	for _, q := range []*queue[T]{&s.reads, &s.writes} {
		for q.len() > 0 {
			r := q.pop()
			r.Req().Done = true
			out = append(out, r)
		}
	}
	s.reserved = 0
	return out
}
