// Package crashtest is vlfs's crash-consistency harness, the engine behind
// `vlfs crashtest` (docs/crashtest.md).
//
// Record and replay (in-process, no FUSE): a workload (a setup part and a
// recorded part of file-system operations, see Workload) runs against
// vlfs on a crash-recording device (vld/device.Crash). At every
// persistence point (fsync, fdatasync, sync) the harness snapshots the
// whole tree as the file system shows it: that is the oracle. Afterwards
// it materialises crash states (every flush boundary, random subsets of
// the unflushed writes of each flush epoch, a torn write), mounts each
// through the normal mount path, runs (*vlfs.FS).Check and compares the
// recovered tree with the oracle (Oracle.Judge, the rules of
// docs/durability.md). Panics anywhere become failures. A failing
// workload is shrunk to a minimal one and saved with a replay command.
//
// Workloads come from an ACE-style generator (Seq1, Seq2Sample): one or two
// core operations over a small file set, each followed by a persistence
// choice; or from a text file (ParseWorkload).
//
// Process crash (Kill): a real FUSE mount served by a `vlfs mount` child
// process is SIGKILLed at seeded random moments while a writer fsyncs
// files and records each in a manifest only after its fsync returned;
// after each kill the image is recovered, checked and every manifest entry
// verified.
//
// The package has no locks of its own: each workload runs on its own
// devices and file systems, and Run hands workloads to worker goroutines
// over channels.
package crashtest
