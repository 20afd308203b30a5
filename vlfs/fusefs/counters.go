package fusefs

import (
	"sync/atomic"
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/internal/wallhist"
)

// opcode indexes the per-request counters.
type opcode int

const (
	opUnknown opcode = iota
	opLookup
	opForget
	opGetattr
	opSetattr
	opReadlink
	opSymlink
	opMknod
	opMkdir
	opUnlink
	opRmdir
	opRename
	opLink
	opOpen
	opOpendir
	opRead
	opReaddir
	opWrite
	opStatfs
	opRelease
	opReleasedir
	opFsync
	opFsyncdir
	opSetxattr
	opGetxattr
	opListxattr
	opRemovexattr
	opFlush
	opAccess
	opCreate
	opInterrupt
	opDestroy
	opFallocate
	opLock
	opPoll
	opCopyFileRange
	opLseek
	opSyncfs
	numOpcodes
)

// opcodeNames are the counter names in reports (the FUSE opcode names,
// lower case).
var opcodeNames = [numOpcodes]string{
	"unknown", "lookup", "forget", "getattr", "setattr", "readlink",
	"symlink", "mknod", "mkdir", "unlink", "rmdir", "rename", "link", "open",
	"opendir", "read", "readdir", "write", "statfs", "release", "releasedir",
	"fsync", "fsyncdir", "setxattr", "getxattr", "listxattr", "removexattr",
	"flush", "access", "create", "interrupt", "destroy", "fallocate", "lock",
	"poll", "copy_file_range", "lseek", "syncfs",
}

// OpCount is what the server counted for one FUSE opcode.
type OpCount struct {
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
	// WallUsMean is the mean wall-clock time spent answering, in µs,
	// from the request's arrival in the server to its answer.
	WallUsMean float64 `json:"wall_us_mean"`
	// WallUsP50 and WallUsP99 are the median and 99th percentile of the
	// same times, read from a histogram (within about 6 %).
	WallUsP50 float64 `json:"wall_us_p50"`
	WallUsP99 float64 `json:"wall_us_p99"`
}

type counter struct {
	count, errors atomic.Int64
	wall          wallhist.Hist // the answered requests' times (and their sum)
}

// counters are per-opcode request counters, updated without locks.
type counters [numOpcodes]counter

// arrived counts a request as soon as it is read, so that a caller whose
// system call has returned sees every request it caused.
func (c *counters) arrived(op opcode) { c[op].count.Add(1) }

// answered adds the request's outcome and time.
func (c *counters) answered(op opcode, failed bool, d time.Duration) {
	k := &c[op]
	k.wall.Record(d)
	if failed {
		k.errors.Add(1)
	}
}

// snapshot returns the non-zero counters by name.
func (c *counters) snapshot() map[string]OpCount {
	m := make(map[string]OpCount)
	for i := range c {
		n := c[i].count.Load()
		if n == 0 {
			continue
		}
		w := c[i].wall.Snapshot()
		m[opcodeNames[i]] = OpCount{
			Count:      n,
			Errors:     c[i].errors.Load(),
			WallUsMean: float64(w.SumNs) / float64(n) / 1e3,
			WallUsP50:  float64(w.Quantile(0.5)) / 1e3,
			WallUsP99:  float64(w.Quantile(0.99)) / 1e3,
		}
	}
	return m
}

// hists returns the answered requests' wall-time histograms of the
// non-zero counters by name, for callers that subtract two moments.
func (c *counters) hists() map[string]wallhist.Snapshot {
	m := make(map[string]wallhist.Snapshot)
	for i := range c {
		if c[i].count.Load() != 0 {
			m[opcodeNames[i]] = c[i].wall.Snapshot()
		}
	}
	return m
}

// opcodeOf classifies a request for the counters.
func opcodeOf(req fuse.Request) opcode {
	switch r := req.(type) {
	case *fuse.LookupRequest:
		return opLookup
	case *fuse.ForgetRequest, *fuse.BatchForgetRequest:
		return opForget
	case *fuse.GetattrRequest:
		return opGetattr
	case *fuse.SetattrRequest:
		return opSetattr
	case *fuse.ReadlinkRequest:
		return opReadlink
	case *fuse.SymlinkRequest:
		return opSymlink
	case *fuse.MknodRequest:
		return opMknod
	case *fuse.MkdirRequest:
		return opMkdir
	case *fuse.RemoveRequest:
		return pick(r.Dir, opRmdir, opUnlink)
	case *fuse.RenameRequest:
		return opRename
	case *fuse.LinkRequest:
		return opLink
	case *fuse.OpenRequest:
		return pick(r.Dir, opOpendir, opOpen)
	case *fuse.ReadRequest:
		return pick(r.Dir, opReaddir, opRead)
	case *fuse.WriteRequest:
		return opWrite
	case *fuse.ReleaseRequest:
		return pick(r.Dir, opReleasedir, opRelease)
	case *fuse.FsyncRequest:
		return pick(r.Dir, opFsyncdir, opFsync)
	}
	return opcodeOfRest(req)
}

func opcodeOfRest(req fuse.Request) opcode {
	switch req.(type) {
	case *fuse.StatfsRequest:
		return opStatfs
	case *fuse.SetxattrRequest:
		return opSetxattr
	case *fuse.GetxattrRequest:
		return opGetxattr
	case *fuse.ListxattrRequest:
		return opListxattr
	case *fuse.RemovexattrRequest:
		return opRemovexattr
	case *fuse.FlushRequest:
		return opFlush
	case *fuse.AccessRequest:
		return opAccess
	case *fuse.CreateRequest:
		return opCreate
	case *fuse.InterruptRequest:
		return opInterrupt
	case *fuse.DestroyRequest:
		return opDestroy
	case *fuse.FAllocateRequest:
		return opFallocate
	case *fuse.LockRequest, *fuse.LockWaitRequest, *fuse.UnlockRequest, *fuse.QueryLockRequest:
		return opLock
	case *fuse.PollRequest:
		return opPoll
	case *fuse.CopyFileRangeRequest:
		return opCopyFileRange
	case *fuse.LseekRequest:
		return opLseek
	case *fuse.SyncFSRequest:
		return opSyncfs
	}
	return opUnknown
}

func pick(dir bool, d, f opcode) opcode {
	if dir {
		return d
	}
	return f
}
