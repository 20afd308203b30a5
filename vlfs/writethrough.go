package vlfs

import "github.com/vlfs/vlfs/vld"

// A large write of whole blocks goes straight to the volume instead of
// into the dirty buffer (Options.WriteThroughBytes). Under a FUSE mount
// with the writeback cache the kernel's page cache already holds the data
// and sends it in writes of up to 128 KiB; buffering it again cost a copy
// of every byte, and every 64 MiB a write-out of the whole buffer under
// FS.mu that stalled the writer (docs/fuse.md, "Streaming writes"). The
// blocks are placed and written as a write-out would write them; their
// pointers change in memory and the next commit makes them reachable, so
// durability is as for buffered data.

// DefaultWriteThrough is the write size from which a FUSE mount writes
// whole blocks through (cmd/vlfs mount's -o write_through).
const DefaultWriteThrough = 64 << 10

// throughRange is the run of whole blocks [a, b) of a write of [off, end)
// that goes straight to the volume: at least Options.WriteThroughBytes of
// them, none buffered. a == b when there is none.
func (fs *FS) throughRange(in *inode, off, end uint64) (uint64, uint64) {
	wt := fs.opts.WriteThroughBytes
	bs := uint64(fs.geo.bs)
	a, b := (off+bs-1)/bs, end/bs
	if wt <= 0 || b <= a || (b-a)*bs < uint64(wt) {
		return 0, 0
	}
	for lbn := a; lbn < b; lbn++ {
		if _, ok := in.data[lbn]; ok {
			return 0, 0 // buffered blocks keep the buffered path
		}
	}
	return a, b
}

// writeThroughLocked writes blocks [a, b) of in, whose contents are buf
// (len (b-a) blocks), and points the file at them. buf is only read
// during the call: nothing keeps it.
func (fs *FS) writeThroughLocked(in *inode, a, b uint64, buf []byte) error {
	bs := uint64(fs.geo.bs)
	ws := make([]pendingWrite, 0, b-a)
	for lbn := a; lbn < b; lbn++ {
		var prev *pendingWrite
		if j := lbn - a; j > 0 {
			prev = &ws[j-1]
		}
		var old vld.Addr
		w, err := fs.fileBlockWriteLocked(in, lbn, buf[(lbn-a)*bs:(lbn-a+1)*bs], prev, func(addr vld.Addr) {
			if old == 0 {
				// A new block changes the record's count, even when the
				// write leaves the size and (kernel) times alone.
				in.d.Blocks++
				in.changed()
			}
			// buf is not ours to keep; an in-place volume may have
			// rewritten a remembered address.
			fs.cm.recent.drop(addr)
		})
		if err != nil {
			return err
		}
		if old, err = fs.bmapLocked(in, lbn); err != nil { // the path is prepared
			return err
		}
		ws = append(ws, w)
	}
	fs.stats.throughBlocks.Add(int64(len(ws)))
	// Meta, as a write-out of buffered data: checkSpaceLocked has just
	// counted these blocks, so the volume's reserve may not refuse them.
	// A device error fails the volume, so no commit follows a half-done
	// write-through.
	return fs.writeAllLocked(ws, true)
}
