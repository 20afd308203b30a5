package diskfs

import (
	"syscall"
	"time"

	"bazil.org/fuse"
)

// reader is the loop of one pool goroutine (fuseserve.Core.Read): read a
// request, answer it, read the next, until the connection ends.
func (s *Server) reader() {
	s.core.Read(s.conn, func(req fuse.Request) bool {
		s.serve(req)
		return true
	})
}

// serve answers one request and counts it.
func (s *Server) serve(req fuse.Request) {
	start := time.Now()
	err := s.core.Answer(req, start)
	s.ops.add(opName(req), err != nil, time.Since(start))
}

// errno is the server's fuseserve.Core.Errno: the errors outside errnoOf
// are faults of the disk, logged.
func errno(err error) (errno syscall.Errno, fault bool, note string) {
	errno, known := errnoOf.Errno(err)
	return errno, !known, ""
}
