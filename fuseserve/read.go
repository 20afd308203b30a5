package fuseserve

import (
	"errors"
	"io"
	"os"
	"syscall"

	"bazil.org/fuse"
)

// maxReadErrors ends a reader after this many consecutive errors that are
// neither EOF nor EINTR (a connection gone wrong rather than a bad message).
const maxReadErrors = 100

// Read is the loop of one reader goroutine: read a request from conn and
// hand it to serve, which answers it (through Answer) before the next is
// read. It returns true once the connection has ended (an unmount, an
// abort, or too many errors in a row), false as soon as serve returns
// false (the server has readers enough waiting).
func (c *Core) Read(conn *fuse.Conn, serve func(req fuse.Request) bool) (ended bool) {
	failures := 0
	for {
		req, err := conn.ReadRequest()
		if err != nil {
			failures++
			if c.readEnded(err, failures) {
				return true
			}
			continue
		}
		failures = 0
		if !serve(req) {
			return false
		}
	}
}

// readEnded reports whether a ReadRequest error ends the connection.
func (c *Core) readEnded(err error, failures int) bool {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.EBADF), errors.Is(err, os.ErrClosed),
		errors.Is(err, syscall.ENODEV):
		return true
	case errors.Is(err, syscall.EINTR), errors.Is(err, syscall.EAGAIN):
		return false
	}
	c.Logf("%s: reading a request: %v", c.Name, err)
	return failures >= maxReadErrors
}
