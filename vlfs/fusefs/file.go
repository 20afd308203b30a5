package fusefs

import (
	"errors"
	"io"
	"math"
	"syscall"
	"time"

	"bazil.org/fuse"
)

func (s *Server) open(r *fuse.OpenRequest) error {
	if r.Dir {
		if _, err := s.fs.GetAttr(ino(r.Node)); err != nil {
			return err
		}
		h := s.handles.add(&handle{ino: ino(r.Node)})
		r.Respond(&fuse.OpenResponse{Handle: h})
		return nil
	}
	n := ino(r.Node)
	a, err := s.fs.GetAttr(n)
	if err != nil {
		return err
	}
	if r.OpenFlags&fuse.OpenKillSUIDGID != 0 {
		if err := s.killSUIDGID(n); err != nil {
			return err
		}
		if a, err = s.fs.GetAttr(n); err != nil {
			return err
		}
	}
	if err := s.fs.Open(n); err != nil {
		return err
	}
	var flags fuse.OpenResponseFlags
	if s.stamps.unchanged(a) {
		flags |= fuse.OpenKeepCache
	}
	s.stamps.record(a)
	s.writers.opened(r.Node, r.Flags)
	r.Respond(&fuse.OpenResponse{Flags: flags})
	return nil
}

func (s *Server) release(r *fuse.ReleaseRequest) error {
	if r.Dir {
		s.handles.remove(r.Handle)
		r.Respond()
		return nil
	}
	n := ino(r.Node)
	// The kernel has written its dirty pages back by now (close flushes
	// them), so what vlfs holds is what its page cache holds.
	if a, err := s.fs.GetAttr(n); err == nil {
		s.stamps.record(a)
	}
	s.writers.released(r.Node, r.Flags)
	if err := s.fs.Release(n); err != nil {
		return err
	}
	r.Respond()
	return nil
}

func (s *Server) read(r *fuse.ReadRequest) error {
	if r.Dir {
		return s.readdir(r)
	}
	bp := s.bufs.Get().(*[]byte)
	defer s.bufs.Put(bp)
	buf := *bp
	if r.Size > len(buf) {
		buf = make([]byte, r.Size)
	}
	n, err := s.fs.Read(ino(r.Node), r.Offset, buf[:r.Size])
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	r.Respond(&fuse.ReadResponse{Data: buf[:n]}) // copies buf
	s.ra.after(s.fs, ino(r.Node), r.Offset, int64(n))
	return nil
}

func (s *Server) write(r *fuse.WriteRequest) error {
	n, err := s.fs.Write(ino(r.Node), r.Offset, r.Data)
	if err != nil {
		return err
	}
	if r.Flags&fuse.WriteKillSUIDGID != 0 {
		if err := s.killSUIDGID(ino(r.Node)); err != nil {
			return err
		}
	}
	r.Respond(&fuse.WriteResponse{Size: n})
	return nil
}

// fsyncDataOnly is bit 0 of fuse_fsync_in.fsync_flags (FUSE_FSYNC_FDATASYNC).
const fsyncDataOnly = 1

func (s *Server) fsync(r *fuse.FsyncRequest) error {
	if err := s.fs.Fsync(ino(r.Node), r.Flags&fsyncDataOnly != 0); err != nil {
		return err
	}
	s.refreshBlocks(r.Node)
	r.Respond()
	return nil
}

func (s *Server) fallocate(r *fuse.FAllocateRequest) error {
	if r.Offset > 1<<63-1 || r.Length > 1<<63-1 {
		return syscall.EFBIG
	}
	if err := s.fs.Fallocate(ino(r.Node), uint32(r.Mode), int64(r.Offset), int64(r.Length)); err != nil {
		return err
	}
	r.Respond()
	return nil
}

// copyFileRange is copy_file_range(2) within the mount: the core copies
// through its dirty buffer, so the data crosses into the server once (as
// a WRITE's does) and needs no READ. The kernel has written back the
// source range's dirty pages first and drops the destination's after. A
// copy touching the stats file is left to the kernel's fallback
// (EOPNOTSUPP, per call; ENOSYS would turn copies off for the mount).
func (s *Server) copyFileRange(r *fuse.CopyFileRangeRequest) error {
	if s.isStatsNode(r.NodeOut) {
		return syscall.EOPNOTSUPP
	}
	if r.Flags != 0 {
		return syscall.EINVAL
	}
	if r.Offset > 1<<63-1 || r.OffsetOut > 1<<63-1 {
		return syscall.EFBIG
	}
	// The answer is 32 bits wide; the kernel asks for less anyway.
	n := int64(min(r.Len, math.MaxUint32&^(4096-1)))
	done, err := s.fs.CopyRange(ino(r.Node), int64(r.Offset), ino(r.NodeOut), int64(r.OffsetOut), n)
	if err != nil {
		return err
	}
	// With HANDLE_KILLPRIV_V2 the kernel leaves clearing set-ID bits to
	// the server, and unlike WRITE this request does not say whether the
	// caller may keep them (CAP_FSETID): clear them always, the safe side.
	if done > 0 {
		if err := s.killSUIDGID(ino(r.NodeOut)); err != nil {
			return err
		}
	}
	r.Respond(uint32(done)) // the kernel drops the destination's cached size, times and blocks
	return nil
}

// refreshBlocks drops the kernel's cached attributes of a file whose block
// count changed (writing out allocates blocks), so that st_blocks is fresh:
// with the writeback cache the kernel would otherwise keep the old value
// for AttrTimeout. An inode invalidated less than refreshWindow ago waits
// for the window's end (blocks_refresh.go). An attribute-only invalidation
// takes no inode lock, so it is safe while the fsync request is pending.
func (s *Server) refreshBlocks(n fuse.NodeID) {
	epoch, wait := s.refresh.wait(ino(n), time.Now())
	if wait {
		return
	}
	s.invalidateBlocks(n, epoch)
}

// invalidateBlocks invalidates n's attributes if its block count changed
// since its last invalidation; epoch is blockRefresher's, from before.
func (s *Server) invalidateBlocks(n fuse.NodeID, epoch uint64) {
	a, err := s.fs.GetAttr(ino(n))
	if err != nil || !s.stamps.blocksChanged(a) {
		return
	}
	if err := s.conn.InvalidateNode(n, -1, -1); err != nil {
		return // not cached (ENOENT), or the connection is gone: nothing to record
	}
	s.refresh.record(&s.stamps, epoch, a, time.Now())
}
