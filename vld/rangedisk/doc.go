// Package rangedisk simulates a disk with tagged command queueing and range
// writes (Anand et al., "Avoiding File System Micromanagement with Range
// Writes", OSDI 2008, sections 3 and 4) over the mechanics of vld/disk.
//
// It owns:
//   - range descriptors (desc.go): a list of ranges, or a begin/end pair
//     plus a bitmap of free blocks, with an alignment; validation turns bad
//     input into typed errors before anything is queued;
//   - the queue (disk.go): up to Q outstanding requests (exact reads, exact
//     writes, range writes), served one at a time on the simulated clock;
//     the next request is chosen at the instant the previous one completes,
//     so a request the host sends in reply to a completion competes only
//     from the decision after (why a queue of two behaves like one, as in
//     section 4.4.1 of the paper);
//   - the placement memory and the write barrier (reserve.go, section
//     3.1.2): two outstanding range writes never land on the same block;
//     placements are forgotten once a later barrier has been issued and
//     every write before it has completed;
//   - the schedulers: plain SPTF for exact requests (decide.go), and for
//     range writes hierarchical-range scheduling (hrs.go: split per track,
//     seek-and-settle first, prune tracks whose move alone is no better than
//     the best so far, then the rotational position inside the piece) or
//     expand-and-cancel scheduling (ecs.go: all single-block candidates, or
//     k equally spaced ones; the rest are cancelled when one is chosen).
//     Both count the service-time estimates each decision makes.
//
// Time is simulated milliseconds on the Disk's own clock; nothing sleeps and
// a run is a deterministic function of its inputs. A Disk is owned by one
// goroutine (a simulator, not a device): it has no locks and its methods
// must not be called concurrently. Nothing here keeps package-level state.
package rangedisk
