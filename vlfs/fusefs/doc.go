// Package fusefs serves a vlfs file system to the kernel over FUSE, using
// bazil.org/fuse's low-level API (fuse.Conn.ReadRequest) on the serving core
// of package fuseserve (reader loop, recover-to-EIO, unmount, stats-file
// plumbing), with a pool of reader goroutines of its own, each answering
// the request it read before reading the next one (pool.go). While one
// client thread makes every request, one reader serves them, since that
// thread cannot send another before it has its answer; once several
// threads do (clients.go), readers are kept waiting beside the busy ones,
// up to a maximum, so that a blocked fsync does not hold up the other
// threads' requests.
//
// This package is the only place where vlfs errors become errnos (errno.go).
// A handler never panics: every request runs under recover
// (fuseserve.Core.Answer) and a panic is logged and answered with EIO.
//
// It may import vlfs, vld (for its sentinels), fuseserve and the internal
// helpers; nothing below it imports it.
//
// The root directory holds one virtual, read-only file, .vlfs-stats (see
// Options.StatsFile), whose content is a JSON Report of the live counters;
// `vlfs stats MOUNTPOINT` reads it. It is not listed by readdir.
//
// Lock order: pool.mu and handleTable.mu are leaves; neither is held while
// calling into vlfs.FS or answering the kernel.
package fusefs
