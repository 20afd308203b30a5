// Package logical is the logical disk: the virtual-log paper's VLD under an
// unmodified file system (docs/logical-disk.md). A Disk exports a flat
// space of logical blocks on a vld.Volume and maps each to wherever the
// volume's placement put it.
//
// It owns:
//   - the logical-to-physical map, persisted as the volume's pieces (4
//     bytes per logical block), its format on a volume (Format,
//     FormatPlaced, Blocks, Kind and the app data in the superblock) and
//     its recovery (Open); reads, writes, trims and syncs (disk.go,
//     scatter.go, sync.go, count.go);
//   - relocation for the idle-time compactor (move.go): Movable, the
//     reverse map, read-ahead, Relocate and RelocateLater/Settle, and the
//     foreground activity an idle-time worker watches;
//   - the segment cleaner of a disk on vld.PlaceLFS (lfs_clean.go): its
//     policies, configuration and counters. The log itself is
//     vld/place's; the cleaner sees its segments only through the
//     volume (Volume.LFSSegments, LFSSegmentCount, LFSSegmentBlocks).
//
// It uses the volume through its exported API only: no Disk reaches the
// volume's lock, allocator or log. The volume's own rules (a block freed
// is reused only after the next durable commit) are what make relocation
// and cleaning crash-safe here.
//
// It may import vld (the volume), vld/device (the device it formats) and
// the standard library only; vld does not import it.
//
// Lock order: Disk.mu before the volume's locks (Volume.commitMu, then
// Volume.mu): Sync, WriteSync, Relocate and the cleaner commit with
// Disk.mu held, so that no relocation slips between encoding the map and
// committing it. The activity counters are atomics, read without Disk.mu.
package logical
