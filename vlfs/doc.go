// Package vlfs is the file-system core of vlfs: inodes, directories, file
// data, the inode map and recovery, stored on a vld.Volume. It knows nothing
// about FUSE (package vlfs/fusefs adapts it) and never computes disk
// positions (the volume places every block). It sees only the volume:
// Open takes a *vld.Volume the caller opened with the clock, head model,
// batching and log window it chose (Mount and MountWith open one first, as
// a convenience), and the idle-time compactor runs beside the file system
// (compactor.Background over CompactTarget), started by whoever mounts it.
//
// # Structure
//
// Data, directory, indirect, xattr and inode blocks are written eagerly by
// the volume wherever it chooses. Inodes hold the addresses of their blocks
// (12 direct pointers, 8 in version 4, and single/double/triple indirect
// roots); inodes are
// packed 16 to a 4 KiB inode block; the inode map (inode-block number ->
// address) is the only content of the virtual log: it is kept in memory and
// committed as the volume's pieces. docs/vlfs-format.md has the layout and
// the reasons.
//
// In memory: active inodes (decoded, possibly dirty) in FS.inodes, evicted
// when clean; raw inode blocks in a bounded cache; each active directory
// holds a name -> entry map; dirty file data is buffered per inode up to
// Options.DirtyLimitBytes. A commit writes every dirty block, then the
// inode blocks with the changed inode-map pieces in one vld WriteCommit: a
// commit is a consistent snapshot of the whole file system
// (docs/durability.md). In file-system version 3 a commit of regular
// files' block landings, sizes and times only is a record commit: the data
// and one log record, the holders staying dirty until a full commit;
// mount replays the current epoch's records (records.go,
// records_replay.go; docs/vlfs-format.md, "Log records"). In version 4
// every block is checked against the CRC-32C that whatever names it
// carries (a pointer, a map entry, the inode): a data block's mismatch is
// EIO, a metadata block's is a block that does not decode, and Check
// reads every live block (datasum.go, check_scrub.go; docs/vlfs-format.md,
// "Data checksums"). In version 5 fallocate's reservations are unwritten
// pointers that keep space and write nothing (unwritten.go).
//
// # Locks
//
// Lock order (a lock on the left may be held while taking one on its right,
// never the reverse):
//
//	FS.commitMu -> FS.mu -> (the volume's locks)
//	FS.mu -> FS.readGate -> (the volume's locks)
//	FS.gc.mu is a leaf: never held while taking another lock
//	FS.stats counters are atomics
//
// FS.mu guards all in-memory file-system state. It is a plain Mutex rather
// than an RWMutex because even reads fill caches (inodes, directories,
// indirect blocks). FS.commitMu serialises commits: the leader of a group
// commit takes commitMu, takes mu to write out dirty state and encode the
// inode blocks (a commitPlan), releases mu and runs the volume's
// WriteCommit (inode blocks, log entries, the slow device flush) with only
// commitMu held, so other operations proceed meanwhile; FS.committing keeps
// them from writing inode blocks until mu is taken again to apply the plan.
// Read resolves its blocks under FS.mu, takes FS.readGate (read) and
// releases FS.mu before reading them from the volume, so that a cache
// miss holds up no other operation; a commit drains the gate (write-lock,
// unlock, with FS.mu held) before it hands freed blocks back to the
// volume, so no block a reader resolved is reused under it. Every block
// is freed through FS.pendingFree, which only commits release. Large
// write-outs of buffered data release FS.mu while the volume writes each
// batch (writeout_batch.go); a buffer in flight is never changed in
// place (ownBufLocked copies it), and buffer identity decides, back under
// FS.mu, whether the new address is the block's or is freed. Read-only
// operations and Read load metadata blocks the same way (and changes warm
// what they change first, FS.warm), holding only
// FS.readGate for the device read (meta_unlocked.go, node_unlocked.go):
// they release FS.mu with FS.unlock (a safe point, below), so after it
// they look every inode up again and install what they read only if the
// inode and the pointers that name the block are unchanged. A partial
// write reads its block's other bytes so too (write_partial.go). The
// compactor's reads and copies run with FS.mu released: a move holds
// commitMu, so nothing it read is reused, and repoints only owners that
// did nothing meanwhile (compact_move.go); its read-ahead holds nothing
// and keeps what it read only if FS.releases did not change.
// Functions whose name ends in Locked need FS.mu held; the types FS owns
// (inode, dirState, node, inodeMap, checker) are guarded by FS.mu too.
//
// Caches may only shrink at "safe points" (FS.unlock, at the end of each
// public operation), so an operation never holds a pointer to an evicted
// inode.
package vlfs
