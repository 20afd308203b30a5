package fusefs

import (
	"slices"
	"syscall"

	"bazil.org/fuse"
)

// capabilityXattr is asked for by the kernel before writes (to strip file
// capabilities; once per inode under HANDLE_KILLPRIV_V2, see killpriv.go);
// vlfs never stores it, so it is answered without a call into the file
// system. Setting it fails with EOPNOTSUPP, as on a file system without
// file capabilities: a stored value would be listed but never read back,
// honoured at exec or cleared by a write. Listings leave out one stored
// before that rule (removexattr still clears it).
const capabilityXattr = "security.capability"

func (s *Server) getxattr(r *fuse.GetxattrRequest) error {
	if r.Name == capabilityXattr {
		return syscall.ENODATA
	}
	v, err := s.fs.Getxattr(ino(r.Node), r.Name)
	if err != nil {
		return err
	}
	if r.Size != 0 && uint32(len(v)) > r.Size {
		return syscall.ERANGE
	}
	r.Respond(&fuse.GetxattrResponse{Xattr: v}) // with Size 0, only the length is sent
	return nil
}

func (s *Server) listxattr(r *fuse.ListxattrRequest) error {
	names, err := s.fs.Listxattr(ino(r.Node))
	if err != nil {
		return err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return n == capabilityXattr })
	var resp fuse.ListxattrResponse
	resp.Append(names...)
	if r.Size != 0 && uint32(len(resp.Xattr)) > r.Size {
		return syscall.ERANGE
	}
	r.Respond(&resp)
	return nil
}

func (s *Server) setxattr(r *fuse.SetxattrRequest) error {
	if r.Name == capabilityXattr {
		return syscall.EOPNOTSUPP
	}
	if err := s.fs.Setxattr(ino(r.Node), r.Name, r.Xattr, r.Flags); err != nil {
		return err
	}
	r.Respond()
	return nil
}

func (s *Server) removexattr(r *fuse.RemovexattrRequest) error {
	if err := s.fs.Removexattr(ino(r.Node), r.Name); err != nil {
		return err
	}
	r.Respond()
	return nil
}
