package fusefs

import (
	"os"
	"sync"

	"github.com/vlfs/vlfs/vlfs"
	"golang.org/x/sys/unix"
)

// maxHintRanges caps the device ranges hinted after one READ.
const maxHintRanges = 256

// imageReadahead asks the host to read the image ahead of a file read
// sequentially: after each READ it hints (posix_fadvise WILLNEED) the
// image ranges that hold the next window of the file. vlfs answers READs
// one at a time under its lock, and a file laid out in short runs reaches
// the image as a stream of small synchronous preads that the host's own
// readahead (which follows the image's offsets, not the file's) cannot
// predict; with the hint the host reads them while vlfs serves the
// previous READs. A hint changes no data: what is read is still read
// through vlfs, so it can never return stale bytes.
type imageReadahead struct {
	f      *os.File // the image, read-only; nil: off
	window int64

	mu sync.Mutex
	m  map[vlfs.Ino]*raState
}

// raState is one file's read pattern: where the last READ ended, how far
// the image has been hinted, and a range left behind that mark unhinted
// (gapFrom < gapTo: a hint cut short after another reader had moved the
// mark on).
type raState struct{ next, hinted, gapFrom, gapTo int64 }

// open starts hinting for the image at path; it stays off (nil file) when
// window <= 0, path is empty or the image cannot be opened.
func (ra *imageReadahead) open(path string, window int64) {
	ra.m = make(map[vlfs.Ino]*raState)
	if window <= 0 || path == "" {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	ra.f, ra.window = f, window
}

func (ra *imageReadahead) close() {
	if ra.f != nil {
		ra.f.Close()
	}
}

// plan records a READ of [off, off+n) of file n and returns the file range
// to hint, if the file is being read sequentially and the hinted window
// has fallen below a full window ahead of the READ.
func (ra *imageReadahead) plan(n vlfs.Ino, off, size int64) (from, to int64, ok bool) {
	if ra.f == nil || size <= 0 {
		return 0, 0, false
	}
	ra.mu.Lock()
	defer ra.mu.Unlock()
	st := ra.m[n]
	if st == nil {
		st = &raState{}
		ra.m[n] = st
	}
	end := off + size
	// The kernel sends readahead READs asynchronously and several readers
	// answer them, so a sequential stream arrives slightly out of order.
	seq := off >= st.next-ra.window && off <= st.next+ra.window
	if !seq || end < st.hinted-2*ra.window {
		st.next, st.hinted = end, end // random access, or a new pass
		return 0, 0, false
	}
	st.next = max(st.next, end)
	if st.gapFrom < st.gapTo {
		from, to = max(st.gapFrom, end), st.gapTo
		st.gapFrom, st.gapTo = 0, 0
		if from < to {
			return from, to, true
		}
	}
	from, to = max(st.hinted, end), end+ra.window
	if to-from < ra.window/4 {
		return 0, 0, false // hinted far enough already; hint in big steps
	}
	st.hinted = to
	return from, to, true
}

// after hints the image ranges behind the window that a READ of [off,
// off+size) of file n makes due. Errors are ignored: it is a hint.
func (ra *imageReadahead) after(fsys *vlfs.FS, n vlfs.Ino, off, size int64) {
	from, to, ok := ra.plan(n, off, size)
	if !ok {
		return
	}
	rs, covered, err := fsys.DeviceRanges(n, from, to-from, maxHintRanges)
	if err != nil {
		covered = from
	}
	if covered < to {
		ra.shortOf(n, to, covered)
	}
	fd := int(ra.f.Fd())
	for _, r := range rs {
		_ = unix.Fadvise(fd, r.Off, r.Len, unix.FADV_WILLNEED)
	}
}

// shortOf records that a hint planned up to file offset to reached only
// covered (maxHintRanges cut it short: a window of a file in short runs),
// so that the next READ hints the rest instead of leaving it unhinted: by
// pulling the mark back, or, if another reader has moved the mark on
// meanwhile, as a gap that the next plan hints first.
func (ra *imageReadahead) shortOf(n vlfs.Ino, to, covered int64) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	st := ra.m[n]
	switch {
	case st == nil || covered >= to:
	case st.hinted == to:
		st.hinted = covered
	case st.hinted > to:
		if st.gapFrom < st.gapTo {
			covered, to = min(covered, st.gapFrom), max(to, st.gapTo)
		}
		st.gapFrom, st.gapTo = covered, to
	}
}

func (ra *imageReadahead) drop(n vlfs.Ino) {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	delete(ra.m, n)
}
