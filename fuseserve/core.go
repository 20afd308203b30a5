package fuseserve

import (
	"syscall"

	"bazil.org/fuse"
)

// Core is what the serving core needs of one server. The server builds it
// once, before its readers start; the core only reads it.
type Core struct {
	// Name prefixes the core's log lines ("fusefs", "diskfs").
	Name string
	// Logf and Debug are the server's Options.Logf and Options.Debug
	// (Debug nil: no line per request).
	Logf  func(format string, args ...any)
	Debug func(msg string)
	// Handle answers one request. It answers success itself, as its last
	// step, and returns an error unanswered, for Answer to answer: so a
	// panic, which can only come before the answer, can be answered too.
	Handle func(req fuse.Request) error
	// Errno turns an error Handle returned into the errno answered. fault
	// says the error is the server's rather than the caller's: it is
	// logged, with note (if any) at the end of the line.
	Errno func(err error) (errno syscall.Errno, fault bool, note string)
}
