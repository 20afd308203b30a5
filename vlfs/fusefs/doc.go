// Package fusefs serves a vlfs file system to the kernel over FUSE, using
// bazil.org/fuse's low-level API (fuse.Conn.ReadRequest) with its own serving
// loop: a small pool of reader goroutines, each answering the request it read
// before reading the next one. A request that has to wait (an fsync waiting
// for a group commit) simply blocks its reader; when no reader is left
// waiting on the kernel, the pool starts another one, up to a maximum, so a
// blocked fsync can never starve the other requests.
//
// This package is the only place where vlfs errors become errnos (errno.go).
// A handler never panics: every request runs under recover and a panic is
// logged and answered with EIO.
//
// The root directory holds one virtual, read-only file, .vlfs-stats (see
// Options.StatsFile), whose content is a JSON Report of the live counters;
// `vlfs stats MOUNTPOINT` reads it. It is not listed by readdir.
//
// Lock order: pool.mu and handleTable.mu are leaves; neither is held while
// calling into vlfs.FS or answering the kernel.
package fusefs
