// Package diskfs serves one disk image to the kernel over FUSE so that an
// unmodified file system can run on it: the virtual-log paper's first design,
// UFS on a Virtual Log Disk, repeated with ext4 (over a loop device) or
// fuse2fs on a logical.Disk.
//
// The mount point holds two files:
//
//	disk   a read/write regular file of the exported size. Reads and writes
//	       at any offset and length go through the disk (for a logical.Disk,
//	       its indirection map; partial blocks are read, modified and
//	       written); fsync and fdatasync make everything written so far
//	       durable; fallocate PUNCH_HOLE and ZERO_RANGE trim whole blocks
//	       (the loop driver turns discard and write-zeroes into these);
//	       writes beyond the size fail with EFBIG and change nothing.
//	stats  read-only JSON (Report): the simulated time breakdown, device
//	       requests, blocks freed by trim and by overwrite, FUSE requests.
//
// Serving uses bazil.org/fuse's low-level API on the serving core of package
// fuseserve (reader loop, recover-to-EIO, unmount, stats-file plumbing): a
// fixed pool of readers, each answering the request it read before reading
// the next. Every disk call is
// serialised by the Disk itself (Logical holds one mutex around the
// logical.Disk), so no request waits for another FUSE request and the pool
// cannot deadlock. Unmount refuses while anything still holds the disk file
// (a loop device, a file system mounted from it, an open descriptor): the
// file system above would lose its disk (holders.go).
//
// Errors become errnos only here (errno.go); a handler never panics out: a
// panic is logged and answered with EIO (fuseserve.Core.Answer).
//
// The package sits beside the vld tree, not in it, so that no vld package
// knows about FUSE. It may import vld and vld/logical (the logical.Disk it exports),
// fuseserve and the internal helpers; it does not import vlfs or
// vlfs/fusefs, and nothing below it imports it.
//
// Lock order: Logical.mu before the logical.Disk's and the volume's locks;
// Mem.mu, counters.mu and handleTable.mu are leaves.
package diskfs
