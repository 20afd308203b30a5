// Package vld is the Virtual Log Disk: it decides where every block lands on
// a simulated (or profiled) disk and keeps the virtual log that makes those
// decisions recoverable.
//
// It owns:
//   - the volume's use of the eager-writing allocator (package vld/alloc:
//     free space, the cylinder sweep, the fill threshold of section 4.2 of
//     the virtual-log paper and the indexes behind it): marking the blocks
//     the log and the client hold, and the head models that price a choice
//     (head.go, head_profile.go, head_range.go);
//   - the choice of placement policy (placement.go: Placement, kept in the
//     superblock) and placing through it (placeLocked), with the client's
//     hints; the policies themselves (eager, in place, range writes, the
//     LFS log) are package vld/place's, behind place.Policy. The order of
//     queued range writes (sched_range.go) stays here: it walks the
//     volume's request queue;
//   - the head model and the two clocks (clock.go);
//   - serving the request scheduler (package vld/sched: the batching
//     policies and the read and write queues): the synchronous and
//     asynchronous entry points and the dispatch of each unit on the device
//     (sched_dispatch.go);
//   - the virtual log (vlog.go): a tree of entries chained backwards from a
//     root, each entry the newest version of one "piece" of the client's map;
//     obsolete entries are recycled as the tree is re-rooted (Figure 3b);
//   - checkpoints, the tail record and recovery (checkpoint.go, open.go,
//     recover.go), with the bounded scan of docs/vld.md when the tail record
//     is missing, and the pruning of entries the running volume had
//     recycled (vlog.prune);
//   - the redundancy of fixed metadata (issue 34): superblock copies
//     (superblock_copies.go), both checkpoint slots and a copy of each
//     checkpoint directory block, and two copies of every piece written
//     by checkpoints at rest (piece_copies.go: Close, Protect), mended by a
//     read-write Start (Volume.Redundancy); Abandon closes an unchanged
//     volume byte for byte;
//   - Check, the invariant walker (check.go);
//   - what a client may see of an LFS log beyond placement (lfs_log.go):
//     its counters, and the segments a logical disk's cleaner may empty.
//
// It does not know what a file, an inode or a logical block is: vlfs
// stores its inode map in the pieces, and the logical disk (package
// vld/logical: the paper's VLD under an unmodified file system, with its
// relocation and its LFS cleaner) its block map; both use the volume
// through its exported API.
//
// Subpackages below the root: disk (geometry and timing), device, ondisk
// (formats), profile (measured head profiles), rangedisk, alloc and sched,
// which import only disk, and place, which imports only alloc, disk,
// ondisk and rangedisk: the root imports them, never the reverse. Above
// it: logical, which imports only the root and device; the root never
// imports it (its tests that run a logical disk are package vld_test).
//
// Lock order: a client's lock (logical.Disk.mu) before Volume.commitMu
// before Volume.mu (logical.Disk.Sync and WriteSync commit with its mu
// held, so that no relocation slips between encoding the map and
// committing it). The
// allocator, the scheduler and the placement policy have no lock of their
// own: Volume.mu guards them.
// Functions whose names end in Locked need their receiver's mu held.
// On the real-time clock a request served from the scheduler's queue does
// not sleep its service time under Volume.mu: its caller waits for the
// busy disk with mu released (waitLocked), so only requests outside the
// queue (commit entries, the tail) hold mu across the device's time.
package vld
