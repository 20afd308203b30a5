package fusefs

import (
	"syscall"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// owner returns the uid, gid and permission bits of a new inode in dir:
// the caller's ids, except that a set-group-id directory passes its group
// on, and its set-group-id bit to new subdirectories (as every Linux disk
// file system does; FUSE leaves it to the server).
func (s *Server) owner(h *fuse.Header, dir vlfs.Ino, perm uint32, isDir bool) (uid, gid, mode uint32, err error) {
	parent, err := s.fs.GetAttr(dir)
	if err != nil {
		return 0, 0, 0, err
	}
	gid = h.Gid
	if parent.Mode&syscall.S_ISGID != 0 {
		gid = parent.Gid
		if isDir {
			perm |= syscall.S_ISGID
		}
	}
	return h.Uid, gid, perm, nil
}

func (s *Server) create(r *fuse.CreateRequest) error {
	dir := ino(r.Node)
	if !r.Tmpfile && s.isStatsName(r.Node, r.Name) {
		return syscall.EEXIST
	}
	uid, gid, perm, err := s.owner(&r.Header, dir, unixPerm(r.Mode), false)
	if err != nil {
		return err
	}
	var a vlfs.Attr
	if r.Tmpfile { // O_TMPFILE: no name; linkat(2) may give it one
		a, err = s.fs.CreateTmp(dir, syscall.S_IFREG|perm, uid, gid)
	} else {
		a, err = s.fs.Create(dir, r.Name, syscall.S_IFREG|perm, uid, gid)
	}
	if err != nil {
		return err
	}
	if err := s.fs.Open(a.Ino); err != nil {
		s.fs.Forget(a.Ino, 1) // the kernel never learns of the entry
		return err
	}
	s.stamps.record(a)
	s.writers.opened(fuse.NodeID(a.Ino), r.Flags)
	r.Respond(&fuse.CreateResponse{LookupResponse: s.entry(a)})
	return nil
}

func (s *Server) mkdir(r *fuse.MkdirRequest) error {
	dir := ino(r.Node)
	if s.isStatsName(r.Node, r.Name) {
		return syscall.EEXIST
	}
	uid, gid, perm, err := s.owner(&r.Header, dir, unixPerm(r.Mode), true)
	if err != nil {
		return err
	}
	a, err := s.fs.Mkdir(dir, r.Name, syscall.S_IFDIR|perm, uid, gid)
	if err != nil {
		return err
	}
	r.Respond(&fuse.MkdirResponse{LookupResponse: s.entry(a)})
	return nil
}

func (s *Server) mknod(r *fuse.MknodRequest) error {
	dir := ino(r.Node)
	if s.isStatsName(r.Node, r.Name) {
		return syscall.EEXIST
	}
	uid, gid, perm, err := s.owner(&r.Header, dir, unixPerm(r.Mode), false)
	if err != nil {
		return err
	}
	a, err := s.fs.Mknod(dir, r.Name, unixType(r.Mode)|perm, r.Rdev, uid, gid)
	if err != nil {
		return err
	}
	e := s.entry(a)
	r.Respond(&e)
	return nil
}

func (s *Server) symlink(r *fuse.SymlinkRequest) error {
	dir := ino(r.Node)
	if s.isStatsName(r.Node, r.NewName) {
		return syscall.EEXIST
	}
	uid, gid, _, err := s.owner(&r.Header, dir, 0, false)
	if err != nil {
		return err
	}
	a, err := s.fs.Symlink(dir, r.NewName, r.Target, uid, gid)
	if err != nil {
		return err
	}
	r.Respond(&fuse.SymlinkResponse{LookupResponse: s.entry(a)})
	return nil
}

func (s *Server) link(r *fuse.LinkRequest) error {
	if s.isStatsNode(r.OldNode) {
		return errReserved
	}
	if s.isStatsName(r.Node, r.NewName) {
		return syscall.EEXIST
	}
	a, err := s.fs.Link(ino(r.OldNode), ino(r.Node), r.NewName)
	if err != nil {
		return err
	}
	e := s.entry(a)
	r.Respond(&e)
	return nil
}

func (s *Server) remove(r *fuse.RemoveRequest) error {
	if s.isStatsName(r.Node, r.Name) {
		return errReserved
	}
	var err error
	if r.Dir {
		err = s.fs.Rmdir(ino(r.Node), r.Name)
	} else {
		err = s.fs.Unlink(ino(r.Node), r.Name)
	}
	if err != nil {
		return err
	}
	r.Respond()
	return nil
}

// rename serves rename(2) and renameat2(2): the flags (RENAME_NOREPLACE,
// RENAME_EXCHANGE) arrive through FUSE_RENAME2, which our patched
// bazil.org/fuse decodes (third_party/bazil.org/fuse/VLFS-PATCHES.md).
func (s *Server) rename(r *fuse.RenameRequest) error {
	if s.isStatsName(r.Node, r.OldName) || s.isStatsName(r.NewDir, r.NewName) {
		return errReserved
	}
	if err := s.fs.Rename(ino(r.Node), r.OldName, ino(r.NewDir), r.NewName, r.Flags); err != nil {
		return err
	}
	r.Respond()
	return nil
}
