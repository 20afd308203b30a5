package fusefs

import (
	"syscall"

	"bazil.org/fuse"
)

// dispatch routes a request to its handler. A handler answers success
// itself and returns an error to be answered by the caller.
func (s *Server) dispatch(req fuse.Request) error {
	if _, ok := req.(*fuse.PollRequest); ok {
		return syscall.ENOSYS // the kernel then stops asking (see disablePoll)
	}
	if s.isStatsNode(req.Hdr().Node) {
		return s.statsRequest(req)
	}
	switch r := req.(type) {
	case *fuse.LookupRequest:
		return s.lookup(r)
	case *fuse.ForgetRequest:
		return s.forget(r)
	case *fuse.BatchForgetRequest:
		return s.batchForget(r)
	case *fuse.GetattrRequest:
		return s.getattr(r)
	case *fuse.SetattrRequest:
		return s.setattr(r)
	case *fuse.CreateRequest:
		return s.create(r)
	case *fuse.MkdirRequest:
		return s.mkdir(r)
	case *fuse.MknodRequest:
		return s.mknod(r)
	case *fuse.SymlinkRequest:
		return s.symlink(r)
	case *fuse.ReadlinkRequest:
		return s.readlink(r)
	case *fuse.LinkRequest:
		return s.link(r)
	case *fuse.RemoveRequest:
		return s.remove(r)
	case *fuse.RenameRequest:
		return s.rename(r)
	case *fuse.OpenRequest:
		return s.open(r)
	case *fuse.ReleaseRequest:
		return s.release(r)
	case *fuse.ReadRequest:
		return s.read(r)
	case *fuse.WriteRequest:
		return s.write(r)
	}
	return s.dispatchRest(req)
}

// dispatchRest routes the less frequent requests.
func (s *Server) dispatchRest(req fuse.Request) error {
	switch r := req.(type) {
	case *fuse.FsyncRequest:
		return s.fsync(r)
	case *fuse.FlushRequest:
		// close(2) is no durability point (fsync is), and the kernel has
		// written its dirty pages back before sending FLUSH. ENOSYS makes
		// it stop sending FLUSH on this connection: one round trip less
		// per close(2), counted against every create in the metadata storm
		// (docs/peers.md). POSIX locks are the kernel's, so nothing needs
		// the lock owner FLUSH carries.
		return syscall.ENOSYS
	case *fuse.FAllocateRequest:
		return s.fallocate(r)
	case *fuse.CopyFileRangeRequest:
		return s.copyFileRange(r)
	case *fuse.LseekRequest:
		return s.lseek(r)
	case *fuse.SyncFSRequest:
		// syncfs(2) and sync(2), sent to fuseblk mounts only: the whole
		// file system becomes durable, as for any fsync.
		if err := s.fs.Sync(); err != nil {
			return err
		}
		r.Respond()
		return nil
	case *fuse.StatfsRequest:
		return s.statfs(r)
	case *fuse.AccessRequest:
		return s.access(r)
	case *fuse.GetxattrRequest:
		return s.getxattr(r)
	case *fuse.ListxattrRequest:
		return s.listxattr(r)
	case *fuse.SetxattrRequest:
		return s.setxattr(r)
	case *fuse.RemovexattrRequest:
		return s.removexattr(r)
	case *fuse.InterruptRequest:
		// Nothing vlfs does can be abandoned half way; the interrupted
		// request is answered when it completes.
		r.Respond()
		return nil
	case *fuse.DestroyRequest:
		r.Respond()
		return nil
	}
	// Locks (the kernel keeps them locally; vlfs does not ask for them),
	// poll, ioctl: the kernel falls back or reports the error.
	return syscall.ENOSYS
}
