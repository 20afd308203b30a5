// Package place holds the placement policies of the Virtual Log Disk:
// where a request's blocks go, behind one interface, Policy, that the
// volume calls with its lock held (docs/placement.md).
//
// It owns:
//   - the interface and what it is given (policy.go): Policy, the
//     Request (how many blocks, the window they may go in, the client's
//     hints), At (where the head is and what time it is), the Disk a
//     policy is built on (the allocator, the layout, the head model, the
//     largest track), Run, and NoSpace, the error of a placement that
//     found no room;
//   - Eager (eager.go): eager writing, the run the head reaches first;
//   - InPlace (inplace.go): update in place, the regular disk under FFS;
//   - Range (range.go, range_hold.go): range writes chosen by HRS near
//     the client's hints, with the growth rooms of recent chains held,
//     and StartCost, by which the volume orders queued range writes;
//   - LFS (lfs.go): the Logical Disk's segmented log, its partial
//     segments and its threading when no segment is clean, and what the
//     volume shows the cleaner of its segments.
//
// It does not own the choice of policy (vld.Placement, kept in the
// superblock), the hints' bookkeeping, the request queues or the head
// models: the volume chooses the policy at open, passes the hints in each
// Request, orders its queue itself (vld/sched_range.go) and implements
// Head with its simulated and profiled heads (vld/head.go,
// vld/head_range.go, vld/head_profile.go). Nor does it do I/O: a policy
// marks the blocks it chooses in the allocator and returns them; LFS
// tells the volume, through the function it was built with, of the
// partial-segment rewrites the volume must charge to its clock.
//
// It may import vld/alloc (the free space it places in), vld/disk (the
// geometry), vld/ondisk (the fixed blocks no policy may take),
// vld/rangedisk (the extents a range choice is made in) and the standard
// library only; in particular not vld, which imports it. So its error
// carries no sentinel: the volume reports a NoSpace as vld.ErrNoSpace.
//
// A policy is not safe for concurrent use: the Volume guards it, and the
// allocator it places in, with its mu; it takes no lock of its own.
package place
