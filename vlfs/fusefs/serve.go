package fusefs

import (
	"time"

	"bazil.org/fuse"
)

// reader is the loop of one pool goroutine (fuseserve.Core.Read), which
// leaves the pool when the connection ends or when enough other readers
// wait.
func (s *Server) reader() {
	ended := s.core.Read(s.conn, func(req fuse.Request) bool {
		// One clock read serves the regime and the request's timing: a
		// thread seen since counts at once (its change is later than
		// now), and a window that ends during a long request only keeps
		// the old pool one request longer.
		now := time.Now()
		s.clients.saw(req, now)
		s.pool.busy(s.clients.concurrent(now))
		s.serve(req, now)
		return s.pool.idleAgain(s.clients.concurrent(now))
	})
	if ended {
		s.pool.exit()
	}
}

// serve answers one request, read at start, and counts it.
func (s *Server) serve(req fuse.Request, start time.Time) {
	op := opcodeOf(req)
	s.ops.arrived(op)
	err := s.core.Answer(req, start)
	s.ops.answered(op, err != nil, served(req, start))
}

// served is the server's time on a request: from its arrival to the moment
// its answer began to be written. Writing the answer can wake the caller,
// which may run on this CPU before the write returns, so the time after it
// would count the caller's work; a request never answered (FORGET) counts
// until now.
func served(req fuse.Request, start time.Time) time.Duration {
	if t := req.Hdr().Answering(); !t.IsZero() {
		return t.Sub(start)
	}
	return time.Since(start)
}
