package fusefs

import (
	"math"
	"sync"
	"syscall"

	"bazil.org/fuse"
)

// lseek(2)'s whence values that reach a FUSE server.
const (
	seekData = 3
	seekHole = 4
)

// lseek answers SEEK_DATA and SEEK_HOLE from vlfs's block map, for files
// nobody has open for writing. The kernel sends LSEEK without writing its
// dirty pages back first, and those pages (written under the writeback
// cache, or through a shared mapping in any mode) may fill holes vlfs knows
// nothing of yet, or lie past the size vlfs knows. They can exist only
// while a handle that may write is open: close writes them back, and so
// does the last release. For a file with such a handle the answer is
// ENOSYS, and the kernel then answers every later lseek on this mount
// itself, calling the whole file data up to its own size: always right,
// never exact. (Having the kernel write the pages back first, by
// invalidating them, made the handler wait on WRITEs only this process can
// answer: a daemon killed in that wait could not exit, and the mount hung
// for good. docs/fuse.md, "Holes".)
func (s *Server) lseek(r *fuse.LseekRequest) error {
	var data bool
	switch r.Whence {
	case seekData:
		data = true
	case seekHole:
	default:
		return syscall.EINVAL
	}
	if s.writers.writing(r.Node) {
		return syscall.ENOSYS
	}
	if r.Offset > math.MaxInt64 {
		return syscall.ENXIO
	}
	off, err := s.fs.Seek(ino(r.Node), int64(r.Offset), data)
	if err != nil {
		return err
	}
	r.Respond(uint64(off))
	return nil
}

// seekStats answers lseek on the stats file: all data, up to the end of
// the report the handle holds.
func (s *Server) seekStats(r *fuse.LseekRequest) error {
	h := s.handles.get(r.Handle)
	if h == nil {
		return syscall.EBADF
	}
	size := uint64(len(h.data))
	switch {
	case r.Whence != seekData && r.Whence != seekHole:
		return syscall.EINVAL
	case r.Offset >= size:
		return syscall.ENXIO
	case r.Whence == seekData:
		r.Respond(r.Offset)
	default:
		r.Respond(size)
	}
	return nil
}

// writerTable counts, per inode, the open handles that may write: the
// kernel can hold dirty pages of an inode only while one is open.
type writerTable struct {
	mu sync.Mutex
	m  map[fuse.NodeID]int
}

// opened records an open or create with flags.
func (t *writerTable) opened(n fuse.NodeID, flags fuse.OpenFlags) {
	if flags.IsReadOnly() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[fuse.NodeID]int)
	}
	t.m[n]++
}

// released records the release of a handle opened with flags.
func (t *writerTable) released(n fuse.NodeID, flags fuse.OpenFlags) {
	if flags.IsReadOnly() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[n] <= 1 {
		delete(t.m, n)
		return
	}
	t.m[n]--
}

// files is the number of files a handle that may write holds open.
func (t *writerTable) files() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// writing reports whether a handle that may write n is open.
func (t *writerTable) writing(n fuse.NodeID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[n] > 0
}
