package fusefs

import (
	"syscall"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// The server negotiates FUSE_HANDLE_KILLPRIV_V2. Without it the kernel
// asks for security.capability (GETXATTR) before every write(2), one round
// trip each; with it the kernel marks inodes S_NOSEC after one check and
// leaves clearing set-ID bits to the server, telling it when: a WRITE,
// SETATTR or OPEN(O_TRUNC) flagged KILL_SUIDGID (the kernel sets the flag
// for a write or truncate by a caller without CAP_FSETID, and for every
// chown of a non-directory). vlfs stores no file capabilities (they are
// answered ENODATA), so only the mode bits need clearing.

// killedMode is perm with the set-user-ID bit cleared, and the
// set-group-ID bit too when the file is group-executable (otherwise that
// bit means mandatory locking, which the kernel does not clear either).
func killedMode(perm uint32) uint32 {
	perm &^= syscall.S_ISUID
	if perm&syscall.S_IXGRP != 0 {
		perm &^= syscall.S_ISGID
	}
	return perm
}

// killSUIDGID clears n's set-ID bits as killedMode says, if it has any.
func (s *Server) killSUIDGID(n vlfs.Ino) error {
	a, err := s.fs.GetAttr(n)
	if err != nil {
		return err
	}
	perm := a.Mode & 0o7777
	if k := killedMode(perm); k != perm {
		_, err = s.fs.SetAttr(n, vlfs.SetAttr{Mask: vlfs.SetMode, Mode: k})
	}
	return err
}

// killInSetattr folds a SETATTR's KILL_SUIDGID into the mode it sets.
func (s *Server) killInSetattr(r *fuse.SetattrRequest, sa *vlfs.SetAttr) error {
	if !r.Valid.SetattrKillSUIDGID() {
		return nil
	}
	perm := sa.Mode & 0o7777
	if sa.Mask&vlfs.SetMode == 0 {
		a, err := s.fs.GetAttr(ino(r.Node))
		if err != nil {
			return err
		}
		if a.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			return nil
		}
		perm = a.Mode & 0o7777
	}
	if k := killedMode(perm); k != perm || sa.Mask&vlfs.SetMode != 0 {
		sa.Mode, sa.Mask = k, sa.Mask|vlfs.SetMode
	}
	return nil
}
