// Package device owns vlfs's backing stores: the Device interface through
// which the virtual log disk reads and writes its image, and the
// implementations every layer and every correctness test builds on.
//
//   - File: a regular image file or a block device (pread/pwrite; locked
//     however the image is named: a flock on a file, O_EXCL on a block
//     device, and a flock on a loop device's backing file, file_lock.go;
//     optional O_DIRECT with bounce buffers, and a Flush
//     that lets concurrent callers share one fdatasync).
//   - Mem: an in-memory image.
//   - Crash: a recorder over another Device that logs every write and flush
//     and can materialise any crash state: the image at a flush boundary,
//     plus any subset of the writes issued after that flush, plus one torn
//     write (a sector-granular prefix). It keeps a copy of every write's data
//     for its whole life, so use it for test-sized workloads only.
//   - Faulty: a wrapper that fails the (After+1)-th matching operation (and
//     optionally every later one), for errorfs-style "fail operation i, for
//     every i" tests.
//
// Optional interfaces a device may implement, each with a helper that
// falls back when it does not: VectorWriter (WriteVec: several buffers in
// one request), RunIO (ReadRun/WriteRun) and CacheDropper (DropCache:
// advice that a range of the host's page cache is of no more use; File
// implements it with posix_fadvise).
//
// The package is Linux-only (fdatasync, O_DIRECT, flock, O_EXCL on block devices, loop devices), like vlfs itself.
//
// Offsets and lengths are bytes. A device's size never changes after it is
// opened: an access outside [0, Size) is an error wrapping ErrOutOfRange, and a
// write that does not fit is not applied at all.
//
// Lock order (a lock on the left may be held while taking one on its right,
// never the reverse):
//
//	File.mu (read-held by I/O and Flush, write-held by Close) -> File.rmwMu (O_DIRECT writes)
//	File.mu -> flusher.mu                  (rmwMu and flusher.mu are never held together)
//	Crash.mu -> the base device's locks   (held across the base call so the recorded order is the applied order)
//	Crash.cacheMu -> nothing               (never held together with Crash.mu)
//	Mem.mu is a leaf; Faulty takes no lock (atomic counters) and calls its device unlocked
package device
