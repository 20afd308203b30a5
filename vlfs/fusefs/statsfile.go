package fusefs

import (
	"os"
	"syscall"
	"time"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
)

// statsNode is the node id of the virtual stats file. vlfs numbers inodes
// upwards from 1 and never reaches it.
const statsNode fuse.NodeID = 1<<64 - 2

// statsDisabled is the Options.StatsFile value that turns the file off.
const statsDisabled = "-"

func (s *Server) isStatsNode(n fuse.NodeID) bool {
	return n == statsNode && s.opt.StatsFile != statsDisabled
}

func (s *Server) isStatsName(dir fuse.NodeID, name string) bool {
	return dir == fuse.RootID && name == s.opt.StatsFile && s.opt.StatsFile != statsDisabled
}

// statsAttr describes the stats file: read-only, owned by the server's
// user, never cached (its content changes with every read).
func (s *Server) statsAttr(size int) fuse.Attr {
	now := time.Now()
	return fuse.Attr{
		Inode: uint64(statsNode), Size: uint64(size), Mode: 0o444, Nlink: 1,
		Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid()),
		Atime: now, Mtime: now, Ctime: s.started, BlockSize: preferredIOSize,
	}
}

func (s *Server) statsEntry() fuse.LookupResponse {
	return fuse.LookupResponse{Node: statsNode, EntryValid: s.opt.EntryTimeout,
		Attr: s.statsAttr(len(s.reportJSON()))}
}

// reportJSON is the stats file's content.
func (s *Server) reportJSON() []byte { return fuseserve.Snapshot(s.Report()) }

// statsRequest answers every request about the stats file. It is opened
// with direct I/O, so reads reach the server whatever the size says; each
// open takes a snapshot that its reads return.
func (s *Server) statsRequest(req fuse.Request) error {
	switch r := req.(type) {
	case *fuse.GetattrRequest:
		r.Respond(&fuse.GetattrResponse{Attr: s.statsAttr(len(s.reportJSON()))})
	case *fuse.OpenRequest:
		if !r.Flags.IsReadOnly() || r.Dir {
			return syscall.EACCES
		}
		h := s.handles.add(&handle{ino: 0, data: s.reportJSON()})
		r.Respond(&fuse.OpenResponse{Handle: h, Flags: fuse.OpenDirectIO})
	case *fuse.ReadRequest:
		return s.readStats(r)
	case *fuse.LseekRequest:
		return s.seekStats(r)
	case *fuse.ReleaseRequest:
		s.handles.remove(r.Handle)
		r.Respond()
	default:
		return s.statsOther(req)
	}
	return nil
}

func (s *Server) statsOther(req fuse.Request) error {
	if answered, err := fuseserve.AnswerStateless(req); answered {
		return err
	}
	switch r := req.(type) {
	case *fuse.FsyncRequest:
		r.Respond()
	case *fuse.CopyFileRangeRequest:
		return syscall.EOPNOTSUPP // the kernel copies by reading, per call
	case *fuse.UnrecognizedRequest:
		// As for any node (dispatchRest): ENOSYS makes the kernel stop
		// sending the opcode and use an older one (STATX -> GETATTR,
		// COPY_FILE_RANGE_64 -> COPY_FILE_RANGE); anything else would
		// reach the caller.
		return syscall.ENOSYS
	default:
		return syscall.EPERM
	}
	return nil
}

func (s *Server) readStats(r *fuse.ReadRequest) error {
	h := s.handles.get(r.Handle)
	if h == nil {
		return syscall.EBADF
	}
	fuseserve.ReadSnapshot(r, h.data)
	return nil
}
