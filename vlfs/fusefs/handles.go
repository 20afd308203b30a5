package fusefs

import (
	"sync"
	"time"

	"bazil.org/fuse"
	"github.com/vlfs/vlfs/vlfs"
)

// handle is the state of an open directory or stats file. Regular files need
// none (the kernel names the inode in every request) and get handle 0.
type handle struct {
	ino vlfs.Ino

	mu   sync.Mutex // guards data and ends
	data []byte     // encoded dirents, or the stats file's content
	ends []int      // for a directory: end offset of each dirent in data
}

// handleTable maps handle ids to open directories and stats files.
type handleTable struct {
	mu   sync.Mutex
	next fuse.HandleID
	m    map[fuse.HandleID]*handle
}

func (t *handleTable) init() { t.m = make(map[fuse.HandleID]*handle) }

func (t *handleTable) add(h *handle) fuse.HandleID {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.next++
	t.m[t.next] = h
	return t.next
}

func (t *handleTable) get(id fuse.HandleID) *handle {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[id]
}

func (t *handleTable) remove(id fuse.HandleID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, id)
}

// stamp identifies a version of a file's data as the kernel last saw it.
type stamp struct {
	size  uint64
	mtime time.Time
}

// stampTable remembers what the kernel was told about each inode: the size
// and mtime at the last open or release, so that an open of an unchanged
// file keeps the kernel's page cache (FOPEN_KEEP_CACHE) instead of dropping
// it; and the block count at the last fsync that invalidated the kernel's
// attributes, so that an fsync invalidates them only when st_blocks
// changed since. (Not the count last sent in a reply: the kernel drops the
// attributes of a reply that raced with its own writes, as the SETATTR of
// the times does while writeback is in flight.) An inode's entries are
// dropped when the kernel forgets the inode.
type stampTable struct {
	mu     sync.Mutex
	m      map[vlfs.Ino]stamp
	blocks map[vlfs.Ino]uint64
}

func (t *stampTable) init() {
	t.m = make(map[vlfs.Ino]stamp)
	t.blocks = make(map[vlfs.Ino]uint64)
}

// invalidated records the block count the kernel will fetch afresh.
func (t *stampTable) invalidated(a vlfs.Attr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.blocks[a.Ino] = a.Blocks
}

// blocksChanged reports whether a's block count differs from the one at
// the last invalidation (or none was made).
func (t *stampTable) blocksChanged(a vlfs.Attr) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, ok := t.blocks[a.Ino]
	return !ok || b != a.Blocks
}

func (t *stampTable) record(a vlfs.Attr) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.m[a.Ino] = stamp{a.Size, a.Mtime}
}

func (t *stampTable) unchanged(a vlfs.Attr) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	st, ok := t.m[a.Ino]
	return ok && st.size == a.Size && st.mtime.Equal(a.Mtime)
}

// forgetBlocks makes the next fsync of n invalidate the kernel's
// attributes: a truncate's reply told the kernel a block count the record
// does not know, which a rewrite to the old size would otherwise match.
func (t *stampTable) forgetBlocks(n vlfs.Ino) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.blocks, n)
}

func (t *stampTable) drop(n vlfs.Ino) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.m, n)
	delete(t.blocks, n)
}
