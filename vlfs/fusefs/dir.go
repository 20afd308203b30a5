package fusefs

import (
	"encoding/binary"
	"sort"
	"syscall"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// direntHeader is the fixed part of a fuse_dirent: ino, off, namelen, type.
const direntHeader = 24

// readdir serves a directory listing from a snapshot taken at offset 0, so
// that offsets stay valid while the directory changes. An offset is the
// byte position of an entry's end in the encoded snapshot (as
// fuse.AppendDirent numbers them); only whole entries are sent.
func (s *Server) readdir(r *fuse.ReadRequest) error {
	h := s.handles.get(r.Handle)
	if h == nil {
		return syscall.EBADF
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.Offset == 0 || h.ends == nil {
		ents, err := s.fs.ReadDir(h.ino)
		if err != nil {
			return err
		}
		h.data, h.ends = encodeDir(ents)
	}
	data, err := direntWindow(h.data, h.ends, r.Offset, r.Size)
	if err != nil {
		return err
	}
	r.Respond(&fuse.ReadResponse{Data: data})
	return nil
}

// encodeDir encodes a whole listing and the end offset of each entry.
func encodeDir(ents []vlfs.DirEntry) (data []byte, ends []int) {
	ends = make([]int, 0, len(ents))
	for _, e := range ents {
		data = fuse.AppendDirent(data, fuse.Dirent{Inode: uint64(e.Ino), Type: direntType(e.Mode), Name: e.Name})
		ends = append(ends, len(data))
	}
	return data, ends
}

// direntWindow returns the whole entries that start at off and fit in size
// bytes. off must be 0 or the end of an entry.
func direntWindow(data []byte, ends []int, off int64, size int) ([]byte, error) {
	if off < 0 || off > int64(len(data)) {
		return nil, syscall.EINVAL
	}
	start := int(off)
	i := sort.SearchInts(ends, start+1) // first entry ending after start
	if start != 0 && (i == 0 || ends[i-1] != start) {
		return nil, syscall.EINVAL
	}
	j := sort.SearchInts(ends, start+size+1) // first entry that does not fit
	if j == i {
		return nil, nil
	}
	return data[start:ends[j-1]], nil
}

// direntName decodes the name of the dirent at data[0:] (for tests).
func direntName(data []byte) (name string, next []byte, ok bool) {
	if len(data) < direntHeader {
		return "", nil, false
	}
	n := int(binary.LittleEndian.Uint32(data[16:20]))
	rec := direntHeader + (n+7)&^7
	if rec > len(data) {
		return "", nil, false
	}
	return string(data[direntHeader : direntHeader+n]), data[rec:], true
}
