// Package sched is the request scheduler of the Virtual Log Disk: Carson
// and Setia's read-priority write batching (docs/batching.md, "The
// scheduler"). Reads and writes wait in two arrival-ordered queues; writes
// leave in batches of a fixed number of blocks, and every read that has
// arrived goes before the next batch.
//
// It owns:
//   - the policies (batch.go): Batch and BatchMode, ParseBatch and String
//     (as --batch spells them), and BatchBlocksFor, the batch size a
//     policy puts in force on a disk model: c* of formula (10), c* in
//     whole tracks, a fixed size, an LFS segment, or none (FIFO);
//   - the queues and the choice of the next unit (queue.go): Scheduler
//     keeps the read and write queues, picks the next Unit (one read, or a
//     write batch cut from the head of the write queue as Pieces), drops
//     served requests (Finish), ends all of them (Drain), and counts the
//     blocks of queued eager writes the volume holds back from its space
//     checks (Reserved).
//
// It does no I/O, knows no addresses, buffers or errors of the volume, and
// has no clock: the volume passes the simulated time to Next, serves the
// unit itself (vld/sched_dispatch.go) and marks its requests Sent and Done.
// To keep the volume's types out of it, the scheduler is generic over what
// it queues: an Item is the volume's request, which embeds a Request (the
// arrival time, read or write, fixed address or not, blocks in all and
// sent, done) and adds the rest; the scheduler reaches the embedded part
// through Req. Placement choices among queued writes (range writes by HRS,
// vld/sched_range.go) stay in the volume, which walks the write
// queue with Writes and Write.
//
// It may import vld/disk (the disk model, for c*) and the standard library
// only; in particular not vld, which imports it. So its errors carry no
// sentinel: they name the bad value, and vld.Open wraps them in
// vld.ErrInvalid.
//
// A Scheduler is not safe for concurrent use: the Volume guards it with its
// mu, and it takes no lock of its own.
package sched
