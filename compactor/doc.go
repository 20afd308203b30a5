// Package compactor is the idle-time free-space compactor of the virtual
// log disk (sections 2.3 and 4.2 of the virtual-log paper). Eager writing
// finds free space quickly while tracks have plenty of it; the VLD fills
// empty tracks to a threshold (75 %) while they last, then falls back to
// greedy placement in the holes of fragmented tracks, which is slower.
// During idle time the compactor empties fragmented tracks by copying
// their live blocks into holes of other tracks (hole-plugging, with eager
// writing), so that empty tracks are at hand when the next burst comes.
//
// It owns:
//   - the policy (policy.go): track granularity; source tracks chosen by
//     cost-benefit (free space gained per live block moved, the track left
//     unchanged longest first among equals) or at random (the paper's);
//     a target number of empty tracks at which it stops;
//   - stepping (step.go): work comes in small steps, one read of the
//     source track's live blocks or one move of a few blocks, each move
//     durable before the old copies are freed (the target guarantees it);
//   - idle detection (idle.go): on the virtual clock the workload hands
//     its think time to Think, which works until the time is used and
//     reports how long the next request waits for the step in flight; on
//     the real clock Run works whenever no foreground request has arrived
//     for Config.IdleDelayMs; with Start = StartPredicted (predict.go) a
//     step starts only if the idle interval, predicted from recent ones,
//     leaves room for it;
//   - offline compaction (offline.go) for `vlfs compact`.
//
// It talks to what it compacts through Target (target.go), a narrow
// interface: the logical disk implements it through Logical; the file
// system through vlfs.FS.CompactTarget. A target that learns block owners
// lazily also implements Indexer: Live then reports ErrNotIndexed for a
// track it cannot list yet, and the compactor runs an index step before
// choosing again (docs/compactor.md).
//
// Background (background.go) runs Run in a goroutine of its own until
// Stop: the mount command starts one beside the file system, which does
// not start or know of it.
//
// Concurrency: a Compactor is driven by one goroutine at a time (Think,
// Run, Compact or Step); Stats may be called from any goroutine. Lock
// order: Compactor.mu (stats only) is never held while calling the target.
package compactor
