package diskfs

import (
	"encoding/json"
	"sync"
	"syscall"

	"bazil.org/fuse"
)

// reportJSON is the stats file's content.
func (s *Server) reportJSON() []byte {
	b, err := json.MarshalIndent(s.Report(), "", "  ")
	if err != nil { // a Report holds only numbers, strings and maps of them
		return []byte("{}\n")
	}
	return append(b, '\n')
}

// readStats serves the snapshot taken when the stats file was opened.
func (s *Server) readStats(r *fuse.ReadRequest) error {
	data, ok := s.handles.get(r.Handle)
	if !ok {
		return syscall.EBADF
	}
	if r.Offset < 0 || r.Offset >= int64(len(data)) {
		data = nil
	} else {
		data = data[r.Offset:]
	}
	if len(data) > r.Size {
		data = data[:r.Size]
	}
	r.Respond(&fuse.ReadResponse{Data: data})
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
