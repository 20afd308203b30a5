package diskfs

import (
	"fmt"
	"strings"
	"syscall"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
)

// The three nodes: the root directory and its two files.
const (
	rootNode  = fuse.RootID
	diskNode  = fuse.NodeID(2)
	statsNode = fuse.NodeID(3)
)

// dispatch routes a request to its handler. A handler answers success
// itself and returns an error to be answered by the caller.
func (s *Server) dispatch(req fuse.Request) error {
	switch r := req.(type) {
	case *fuse.ReadRequest:
		return s.read(r)
	case *fuse.WriteRequest:
		return s.write(r)
	case *fuse.FsyncRequest:
		return s.fsync(r)
	case *fuse.FAllocateRequest:
		return s.fallocate(r)
	case *fuse.LookupRequest:
		return s.lookup(r)
	case *fuse.GetattrRequest:
		return s.getattr(r)
	case *fuse.SetattrRequest:
		return s.setattr(r)
	case *fuse.OpenRequest:
		return s.open(r)
	case *fuse.ReleaseRequest:
		s.handles.remove(r.Handle)
		r.Respond()
		return nil
	case *fuse.StatfsRequest:
		return s.statfs(r)
	}
	return s.dispatchRest(req)
}

// dispatchRest answers the requests that need no state, and refuses every
// change to the namespace: the directory always holds exactly two files.
func (s *Server) dispatchRest(req fuse.Request) error {
	if answered, err := fuseserve.AnswerStateless(req); answered {
		return err
	}
	switch r := req.(type) {
	case *fuse.BatchForgetRequest:
		r.Respond()
	case *fuse.DestroyRequest:
		r.Respond()
	case *fuse.CreateRequest, *fuse.MkdirRequest, *fuse.MknodRequest, *fuse.SymlinkRequest,
		*fuse.LinkRequest, *fuse.RemoveRequest, *fuse.RenameRequest,
		*fuse.SetxattrRequest, *fuse.RemovexattrRequest:
		return syscall.EPERM
	default:
		return syscall.ENOSYS // locks, poll, lseek, ioctl: the kernel falls back
	}
	return nil
}

// opName names a request in the counters: "write", "fsync",
// "fallocate_punch_hole", "ioctl", ... (bazil's type name, lower case,
// without "Request").
func opName(req fuse.Request) string {
	if r, ok := req.(*fuse.FAllocateRequest); ok {
		return fallocateName(r.Mode)
	}
	name := strings.TrimPrefix(fmt.Sprintf("%T", req), "*fuse.")
	return strings.ToLower(strings.TrimSuffix(name, "Request"))
}
