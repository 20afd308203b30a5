package fusefs

import (
	"os"
	"syscall"
	"time"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// goMode turns a unix mode (type bits | permissions) into the os.FileMode
// bazil.org/fuse wants; bazil turns it back into the same unix mode, except
// that it drops the sticky bit (a limitation of bazil's Attr encoding).
func goMode(m uint32) os.FileMode {
	mode := os.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		mode |= os.ModeDir
	case syscall.S_IFCHR:
		mode |= os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFBLK:
		mode |= os.ModeDevice
	case syscall.S_IFIFO:
		mode |= os.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= os.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= os.ModeSocket
	}
	if m&syscall.S_ISUID != 0 {
		mode |= os.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		mode |= os.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= os.ModeSticky
	}
	return mode
}

// unixPerm is the permission part (with set-id and sticky bits) of a mode
// bazil decoded from the kernel.
func unixPerm(m os.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		p |= syscall.S_ISUID
	}
	if m&os.ModeSetgid != 0 {
		p |= syscall.S_ISGID
	}
	if m&os.ModeSticky != 0 {
		p |= syscall.S_ISVTX
	}
	return p
}

// unixType is the S_IFMT part of a mode bazil decoded from the kernel
// (S_IFREG when the kernel sent no type, as mknod(2) allows).
func unixType(m os.FileMode) uint32 {
	switch {
	case m&os.ModeDir != 0:
		return syscall.S_IFDIR
	case m&os.ModeCharDevice != 0:
		return syscall.S_IFCHR
	case m&os.ModeDevice != 0:
		return syscall.S_IFBLK
	case m&os.ModeNamedPipe != 0:
		return syscall.S_IFIFO
	case m&os.ModeSymlink != 0:
		return syscall.S_IFLNK
	case m&os.ModeSocket != 0:
		return syscall.S_IFSOCK
	}
	return syscall.S_IFREG
}

// direntType is the d_type of a mode's type bits.
func direntType(m uint32) fuse.DirentType {
	return fuse.DirentType((m & syscall.S_IFMT) >> 12)
}

// fuseAttr converts attributes for the kernel, cacheable for valid.
func fuseAttr(a vlfs.Attr, valid time.Duration) fuse.Attr {
	return fuse.Attr{
		Valid:     valid,
		Inode:     uint64(a.Ino),
		Size:      a.Size,
		Blocks:    a.Blocks,
		Atime:     a.Atime,
		Mtime:     a.Mtime,
		Ctime:     a.Ctime,
		Mode:      goMode(a.Mode),
		Nlink:     a.Nlink,
		Uid:       a.Uid,
		Gid:       a.Gid,
		Rdev:      a.Rdev,
		BlockSize: preferredIOSize,
	}
}

// attr converts attributes for a reply.
func (s *Server) attr(a vlfs.Attr) fuse.Attr {
	return fuseAttr(a, s.opt.AttrTimeout)
}

// entry is the answer to every request that names a new or found inode;
// the kernel counts each one as a lookup and will Forget it.
func (s *Server) entry(a vlfs.Attr) fuse.LookupResponse {
	return fuse.LookupResponse{
		Node:       fuse.NodeID(a.Ino),
		Generation: a.Gen,
		EntryValid: s.opt.EntryTimeout,
		Attr:       s.attr(a),
	}
}

// setAttrOf translates a kernel setattr into a vlfs one.
func setAttrOf(r *fuse.SetattrRequest) vlfs.SetAttr {
	v := r.Valid
	s := vlfs.SetAttr{Mode: unixPerm(r.Mode), Uid: r.Uid, Gid: r.Gid, Size: r.Size,
		Atime: r.Atime, Mtime: r.Mtime, Ctime: r.Ctime}
	bits := []struct {
		on   bool
		mask vlfs.SetAttrMask
	}{
		{v.Mode(), vlfs.SetMode},
		{v.Uid(), vlfs.SetUid},
		{v.Gid(), vlfs.SetGid},
		{v.Size(), vlfs.SetSize},
		// The kernel sets both FATTR_ATIME and FATTR_ATIME_NOW for "now".
		{v.Atime() && !v.AtimeNow(), vlfs.SetAtime},
		{v.AtimeNow(), vlfs.SetAtimeNow},
		{v.Mtime() && !v.MtimeNow(), vlfs.SetMtime},
		{v.MtimeNow(), vlfs.SetMtimeNow},
		{v.SetattrCTime(), vlfs.SetCtime},
	}
	for _, b := range bits {
		if b.on {
			s.Mask |= b.mask
		}
	}
	return s
}
