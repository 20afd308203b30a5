package diskfs

import (
	"os"
	"syscall"

	"bazil.org/fuse"
)

// attrOf describes one of the three nodes.
func (s *Server) attrOf(n fuse.NodeID) (fuse.Attr, error) {
	a := fuse.Attr{Inode: uint64(n), Nlink: 1, Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid()),
		Atime: s.started, Ctime: s.started, Mtime: s.started, Valid: attrValid, BlockSize: ioSize}
	switch n {
	case rootNode:
		a.Mode, a.Nlink = os.ModeDir|0o755, 2
	case diskNode:
		a.Mode, a.Size = 0o644, uint64(s.disk.Size())
		a.Blocks = a.Size / 512
		a.Mtime = s.modTime()
		a.Ctime = a.Mtime
	case statsNode:
		// Opened with direct I/O, so reads reach the server whatever the
		// size says; a fresh size keeps `cat` and editors happy.
		a.Mode, a.Size, a.Valid = 0o444, uint64(len(s.reportJSON())), 0
	default:
		return fuse.Attr{}, syscall.ENOENT
	}
	return a, nil
}

func (s *Server) lookup(r *fuse.LookupRequest) error {
	if r.Node != rootNode {
		return syscall.ENOTDIR
	}
	var n fuse.NodeID
	switch r.Name {
	case DiskFile:
		n = diskNode
	case StatsFile:
		n = statsNode
	default:
		return syscall.ENOENT
	}
	a, err := s.attrOf(n)
	if err != nil {
		return err
	}
	r.Respond(&fuse.LookupResponse{Node: n, Generation: 1, EntryValid: attrValid, Attr: a})
	return nil
}

func (s *Server) getattr(r *fuse.GetattrRequest) error {
	a, err := s.attrOf(r.Node)
	if err != nil {
		return err
	}
	r.Respond(&fuse.GetattrResponse{Attr: a})
	return nil
}

// setattr accepts what leaves the disk as it is: times (ignored: the file's
// mtime is its last write) and a size equal to the exported one. Growing
// is EFBIG, shrinking (O_TRUNC included) EPERM: the disk has a fixed size.
func (s *Server) setattr(r *fuse.SetattrRequest) error {
	if r.Node != diskNode {
		return syscall.EPERM
	}
	if r.Valid&(fuse.SetattrMode|fuse.SetattrUid|fuse.SetattrGid) != 0 {
		return syscall.EPERM
	}
	if r.Valid.Size() {
		switch size := s.disk.Size(); {
		case r.Size > uint64(size):
			return syscall.EFBIG
		case r.Size < uint64(size):
			return syscall.EPERM
		}
	}
	a, err := s.attrOf(diskNode)
	if err != nil {
		return err
	}
	r.Respond(&fuse.SetattrResponse{Attr: a})
	return nil
}

func (s *Server) open(r *fuse.OpenRequest) error {
	switch r.Node {
	case rootNode:
		r.Respond(&fuse.OpenResponse{})
	case diskNode:
		// Every change comes through this mount, so the kernel's page
		// cache of the file never goes stale.
		r.Respond(&fuse.OpenResponse{Flags: fuse.OpenKeepCache})
	case statsNode:
		if !r.Flags.IsReadOnly() {
			return syscall.EACCES
		}
		h := s.handles.add(s.reportJSON())
		r.Respond(&fuse.OpenResponse{Handle: h, Flags: fuse.OpenDirectIO})
	default:
		return syscall.ENOENT
	}
	return nil
}

// statfs describes the disk as a file system of 4 KiB blocks: loop takes
// its discard granularity from f_bsize.
func (s *Server) statfs(r *fuse.StatfsRequest) error {
	st := s.disk.Stats()
	total := uint64(s.disk.Size()) / ioSize
	free := total
	if st.Backend == "vld" {
		free = uint64(st.LogicalBlocks - st.MappedBlocks)
	}
	r.Respond(&fuse.StatfsResponse{Blocks: total, Bfree: free, Bavail: free, Files: 3, Bsize: ioSize,
		Frsize: ioSize, Namelen: 255})
	return nil
}

// readdir lists the two files; the whole listing fits in one answer.
func (s *Server) readdir(r *fuse.ReadRequest) error {
	var data []byte
	if r.Offset == 0 {
		data = fuse.AppendDirent(data, fuse.Dirent{Inode: uint64(diskNode), Type: fuse.DT_File, Name: DiskFile})
		data = fuse.AppendDirent(data, fuse.Dirent{Inode: uint64(statsNode), Type: fuse.DT_File, Name: StatsFile})
	}
	if len(data) > r.Size {
		return syscall.EINVAL
	}
	r.Respond(&fuse.ReadResponse{Data: data})
	return nil
}
