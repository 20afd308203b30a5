package diskfs

import (
	"errors"
	"io"
	"syscall"

	"bazil.org/fuse"
	"golang.org/x/sys/unix"
)

func (s *Server) read(r *fuse.ReadRequest) error {
	switch r.Node {
	case rootNode:
		return s.readdir(r)
	case statsNode:
		return s.readStats(r)
	case diskNode:
	default:
		return syscall.ENOENT
	}
	buf := make([]byte, r.Size)
	n, err := s.disk.ReadAt(buf, r.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	r.Respond(&fuse.ReadResponse{Data: buf[:n]})
	return nil
}

func (s *Server) write(r *fuse.WriteRequest) error {
	if r.Node != diskNode {
		return syscall.EBADF
	}
	n, err := s.disk.WriteAt(r.Data, r.Offset)
	if err != nil {
		return err
	}
	s.touch()
	r.Respond(&fuse.WriteResponse{Size: n})
	return nil
}

// fsync and fdatasync both sync everything: the disk has no metadata of
// its own to leave out.
func (s *Server) fsync(r *fuse.FsyncRequest) error {
	if r.Node == diskNode {
		if err := s.disk.Sync(); err != nil {
			return err
		}
	}
	r.Respond()
	return nil
}

// fallocate modes the disk file understands.
const (
	fallocKeepSize  = fuse.FAllocateFlags(unix.FALLOC_FL_KEEP_SIZE)
	fallocPunchHole = fuse.FAllocateFlags(unix.FALLOC_FL_PUNCH_HOLE)
	fallocZeroRange = fuse.FAllocateFlags(unix.FALLOC_FL_ZERO_RANGE)
)

func fallocateName(m fuse.FAllocateFlags) string {
	switch {
	case m&fallocPunchHole != 0:
		return "fallocate_punch_hole"
	case m&fallocZeroRange != 0:
		return "fallocate_zero_range"
	}
	return "fallocate"
}

// fallocate: PUNCH_HOLE and ZERO_RANGE discard (the loop driver's discard
// and write-zeroes); plain allocation succeeds inside the disk, since every
// logical block can always be written. Nothing may grow the file.
func (s *Server) fallocate(r *fuse.FAllocateRequest) error {
	if r.Node != diskNode {
		return syscall.EPERM
	}
	if r.Mode&^(fallocKeepSize|fallocPunchHole|fallocZeroRange) != 0 {
		return syscall.EOPNOTSUPP
	}
	if r.Offset > 1<<62 || r.Length > 1<<62 {
		return syscall.EFBIG
	}
	off, n := int64(r.Offset), int64(r.Length)
	if r.Mode&fallocKeepSize == 0 && off+n > s.disk.Size() {
		return syscall.EFBIG
	}
	if r.Mode&(fallocPunchHole|fallocZeroRange) != 0 {
		if err := s.disk.Discard(off, n); err != nil {
			return err
		}
		s.touch()
	}
	r.Respond()
	return nil
}
