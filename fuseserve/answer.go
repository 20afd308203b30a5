package fuseserve

import (
	"fmt"
	"runtime/debug"
	"syscall"
	"time"

	"bazil.org/fuse"
)

// ErrPanic is answered, as EIO, to a request whose handler panicked.
const ErrPanic = syscall.EIO

// Answer runs Handle on req, read at start, under recover and answers the
// error it returns (or a panic) with its errno; the error is returned for
// the server's counters.
func (c *Core) Answer(req fuse.Request, start time.Time) error {
	if c.Debug != nil {
		c.Debug("<- " + req.String())
	}
	err := c.safely(req)
	if err != nil {
		c.fail(req, err)
	} else if c.Debug != nil {
		c.Debug(fmt.Sprintf("-> [ID=%v] ok %v", req.Hdr().ID, time.Since(start)))
	}
	return err
}

// safely runs Handle under recover; a panic is logged here and answered
// as ErrPanic.
func (c *Core) safely(req fuse.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			c.Logf("%s: panic answering %v: %v\n%s", c.Name, req, v, debug.Stack())
			err = ErrPanic
		}
	}()
	return c.Handle(req)
}

// fail answers req with the errno of err, logging the server's faults (a
// panic was logged already).
func (c *Core) fail(req fuse.Request, err error) {
	errno, fault, note := c.Errno(err)
	if fault && err != ErrPanic {
		c.Logf("%s: %v: %v (answered %v)%s", c.Name, req, err, errno, note)
	}
	if c.Debug != nil {
		c.Debug(fmt.Sprintf("-> [ID=%v] error %v: %v", req.Hdr().ID, errno, err))
	}
	req.RespondError(errno)
}
