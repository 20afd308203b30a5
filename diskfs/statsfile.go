package diskfs

import (
	"sync"
	"syscall"

	"bazil.org/fuse"

	"github.com/vlfs/vlfs/fuseserve"
)

// reportJSON is the stats file's content.
func (s *Server) reportJSON() []byte { return fuseserve.Snapshot(s.Report()) }

// readStats serves the snapshot taken when the stats file was opened.
func (s *Server) readStats(r *fuse.ReadRequest) error {
	data, ok := s.handles.get(r.Handle)
	if !ok {
		return syscall.EBADF
	}
	fuseserve.ReadSnapshot(r, data)
	return nil
}

// handleTable holds the snapshot of each open stats file. The disk file and
// the directory need no state and get handle 0.
type handleTable struct {
	mu   sync.Mutex
	next fuse.HandleID
	m    map[fuse.HandleID][]byte
}

func (t *handleTable) init() { t.m = make(map[fuse.HandleID][]byte) }

func (t *handleTable) add(data []byte) fuse.HandleID {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.m[t.next] = data
	return t.next
}

func (t *handleTable) get(id fuse.HandleID) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.m[id]
	return d, ok
}

func (t *handleTable) remove(id fuse.HandleID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, id)
}
