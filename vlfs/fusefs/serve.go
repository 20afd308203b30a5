package fusefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"bazil.org/fuse"
)

// maxReadErrors ends a reader that sees this many consecutive errors that
// are neither EOF nor EINTR (a connection gone wrong rather than a bad
// message).
const maxReadErrors = 100

// reader is the loop of one pool goroutine.
func (s *Server) reader() {
	failures := 0
	for {
		req, err := s.conn.ReadRequest()
		if err != nil {
			failures++
			if s.readEnded(err, failures) {
				s.pool.exit()
				return
			}
			continue
		}
		failures = 0
		// One clock read serves the regime and the request's timing: a
		// thread seen since counts at once (its change is later than
		// now), and a window that ends during a long request only keeps
		// the old pool one request longer.
		now := time.Now()
		s.clients.saw(req, now)
		s.pool.busy(s.clients.concurrent(now))
		s.serve(req, now)
		if !s.pool.idleAgain(s.clients.concurrent(now)) {
			return
		}
	}
}

// readEnded reports whether a ReadRequest error ends the connection.
func (s *Server) readEnded(err error, failures int) bool {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.EBADF), errors.Is(err, os.ErrClosed):
		return true
	case errors.Is(err, syscall.EINTR), errors.Is(err, syscall.EAGAIN):
		return false
	}
	s.opt.Logf("fusefs: reading a request: %v", err)
	return failures >= maxReadErrors
}

// serve answers one request, read at start, and counts it.
func (s *Server) serve(req fuse.Request, start time.Time) {
	op := opcodeOf(req)
	s.ops.arrived(op)
	if s.opt.Debug != nil {
		s.opt.Debug("<- " + req.String())
	}
	err := s.safely(req)
	if err != nil {
		s.fail(req, err)
	} else if s.opt.Debug != nil {
		s.opt.Debug(fmt.Sprintf("-> [ID=%v] ok %v", req.Hdr().ID, time.Since(start)))
	}
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

// safely runs the handler under recover. Handlers answer successes
// themselves, as their last step, and return errors unanswered; so a panic
// (which can only come from before the answer) is answered here, as EIO.
func (s *Server) safely(req fuse.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.opt.Logf("fusefs: panic answering %v: %v\n%s", req, v, debug.Stack())
			err = errPanic
		}
	}()
	return s.dispatch(req)
}

// errPanic is answered, as EIO, to a request whose handler panicked.
var errPanic = syscall.EIO

// fail answers a request with the errno of err, logging file-system faults.
func (s *Server) fail(req fuse.Request, err error) {
	errno, known := toErrno(err)
	if shouldLog(err, known) && err != errPanic {
		s.opt.Logf("fusefs: %v: %v (answered %v)%s", req, err, errno, repairHint(err, s.opt.Image))
	}
	if s.opt.Debug != nil {
		s.opt.Debug(fmt.Sprintf("-> [ID=%v] error %v: %v", req.Hdr().ID, errno, err))
	}
	req.RespondError(errno)
}
