// Package fuseserve is the serving core shared by the project's two FUSE
// servers, vlfs/fusefs (a vlfs file system) and diskfs (one disk image, the
// logical-disk mode). It owns what does not depend on what is served:
//
//   - the reader loop (Core.Read): read a request, hand it to the server,
//     and tell a connection that has ended from a bad message;
//   - answering (Core.Answer): the server's handler runs under recover, a
//     panic is logged and answered EIO, and an error becomes an errno
//     through the server's table (ErrnoTable), faults of the server being
//     logged; the requests that a node with nothing behind it answers
//     alike in both servers (AnswerStateless);
//   - the options both servers take and the mount options they make of
//     them (Options);
//   - unmounting with fusermount3 and aborting a connection (Unmounter);
//   - the stats file's plumbing: a JSON snapshot per open, reads of it at
//     any offset, and switching FUSE_POLL off through it (statsfile.go).
//
// What is served stays with each server: its nodes and handles, its
// request counters, its errno table and the content of its stats file.
//
// It imports bazil.org/fuse and the internal helpers fusepoll and mountinfo,
// never vld or vlfs: both servers sit on it, and no vld package needs to
// know about FUSE.
//
// It holds no locks and no state of its own between calls: a Core and an
// Unmounter are read-only once a server is built.
package fuseserve
