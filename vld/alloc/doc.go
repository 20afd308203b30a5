// Package alloc is the eager-writing allocator of the Virtual Log Disk: it
// keeps the free space of a volume and chooses where the next write goes,
// the free run the disk head reaches first (docs/vld.md, "Eager writing").
//
// It owns:
//   - the free-space bitmap (a bit per block) and the summaries kept beside
//     it: free blocks per track and per cylinder, empty tracks per cylinder
//     and on the disk, and a bit per cylinder that holds an empty track
//     (alloc.go);
//   - the search (search.go): the one-way cylinder sweep of section 4.2 of
//     the virtual-log paper, pricing each candidate with the disk model's
//     seek, head switch and rotational wait, and the fill threshold that
//     keeps writes on the active track until it is full enough before they
//     move to an empty one; Window, the tracks a search may use (the
//     volume's log window and its extra tracks);
//   - the indexes that keep a search's cost from growing with fullness
//     without changing its choice: the run index, the longest free run per
//     track and a max-tree over cylinders (runs.go); the phase index, the
//     rotational slots and surfaces that may hold the start of a free run of
//     one or two blocks (phase.go); the skipping of cylinders outside the
//     window or, while filling, without an empty track (skip.go);
//   - the hole choice of compaction (holes.go): the free block reached
//     soonest on tracks that already hold data, under a HoleFilter;
//   - the cost counters (decisions, sampled search time, blocks placed)
//     behind Volume.Stats.
//
// It does not know about the virtual log, checkpoints, requests or the
// simulated clock: a caller passes the head's position and the time
// positioning starts, and marks the blocks it takes (MarkUsed) and frees
// (MarkFree).
// Free-space layouts other than the eager one (in-place, range, LFS
// segments) are the volume's; they use the bitmap through IsUsed, NextFree,
// NextUsed and FreeRun.
//
// It may import vld/disk (the layout and the disk model) and the standard
// library only; in particular not vld, which imports it. So Check's errors
// carry no sentinel: they name the counter or index that disagrees with
// the bitmap, and Volume.Check wraps them in vld.ErrCorrupt. The types it
// shares with the volume (Window, Choice, HoleFilter) live here and the
// volume uses them by these names.
//
// An Allocator is not safe for concurrent use: the Volume guards it with its
// mu, and it takes no lock of its own. FreeNow alone may be called without
// that lock.
package alloc
