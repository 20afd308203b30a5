package fusefs

import (
	"errors"
	"syscall"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

func ino(n fuse.NodeID) vlfs.Ino { return vlfs.Ino(n) }

func (s *Server) lookup(r *fuse.LookupRequest) error {
	if s.isStatsName(r.Node, r.Name) {
		e := s.statsEntry()
		r.Respond(&e)
		return nil
	}
	a, err := s.fs.Lookup(ino(r.Node), r.Name)
	if errors.Is(err, vlfs.ErrNotExist) && s.opt.EntryTimeout > 0 {
		// A negative entry (node 0) lets the kernel cache the absence;
		// it drops it itself when the name is created through it.
		r.Respond(&fuse.LookupResponse{EntryValid: s.opt.EntryTimeout})
		return nil
	}
	if err != nil {
		return err
	}
	e := s.entry(a)
	r.Respond(&e)
	return nil
}

func (s *Server) forget(r *fuse.ForgetRequest) error {
	s.forgetNode(r.Node, r.N)
	r.Respond()
	return nil
}

func (s *Server) batchForget(r *fuse.BatchForgetRequest) error {
	for _, f := range r.Forget {
		s.forgetNode(f.NodeID, f.N)
	}
	r.Respond()
	return nil
}

func (s *Server) forgetNode(n fuse.NodeID, count uint64) {
	if s.isStatsNode(n) {
		return
	}
	s.refresh.forget(ino(n)) // first: an invalidation in flight then records nothing
	s.stamps.drop(ino(n))
	s.ra.drop(ino(n))
	s.fs.Forget(ino(n), count)
}

func (s *Server) getattr(r *fuse.GetattrRequest) error {
	a, err := s.fs.GetAttr(ino(r.Node))
	if err != nil {
		return err
	}
	r.Respond(&fuse.GetattrResponse{Attr: s.attr(a)})
	return nil
}

func (s *Server) setattr(r *fuse.SetattrRequest) error {
	sa := setAttrOf(r)
	if err := s.killInSetattr(r, &sa); err != nil {
		return err
	}
	a, err := s.fs.SetAttr(ino(r.Node), sa)
	if err != nil {
		return err
	}
	if r.Valid.Size() {
		s.refresh.forget(a.Ino) // first, as in forgetNode
		s.stamps.forgetBlocks(a.Ino)
	}
	r.Respond(&fuse.SetattrResponse{Attr: s.attr(a)})
	return nil
}

func (s *Server) readlink(r *fuse.ReadlinkRequest) error {
	target, err := s.fs.Readlink(ino(r.Node))
	if err != nil {
		return err
	}
	r.Respond(target)
	return nil
}

func (s *Server) statfs(r *fuse.StatfsRequest) error {
	st, err := s.fs.StatFS()
	if err != nil {
		return err
	}
	r.Respond(&fuse.StatfsResponse{
		Blocks: st.Blocks, Bfree: st.Bfree, Bavail: st.Bavail,
		Files: st.Files, Ffree: st.Ffree,
		Bsize: st.Bsize, Frsize: st.Bsize, Namelen: st.Namelen,
	})
	return nil
}

// access is only sent without default_permissions, which vlfs always sets;
// answer it as an existence check.
func (s *Server) access(r *fuse.AccessRequest) error {
	if _, err := s.fs.GetAttr(ino(r.Node)); err != nil {
		return err
	}
	r.Respond()
	return nil
}

// errReserved refuses to create, remove or rename over the virtual stats
// file's name in the root directory.
var errReserved = syscall.EPERM
