package vlfs

// A large write of whole blocks goes to the volume before the write
// returns instead of waiting in the dirty buffer (Options.WriteThroughBytes).
// Under a FUSE mount with the writeback cache the kernel's page cache
// already holds the data and sends it in writes of up to 128 KiB;
// buffering it until the dirty limit cost, every 64 MiB, a write-out of
// the whole buffer that stalled the writer (docs/fuse.md, "Streaming
// writes"). The blocks are buffered as any write's (the request's buffer
// is not ours to keep), then written as one batch with FS.mu released
// during the I/O (writeout_batch.go), so that a streaming writer holds up
// no other operation while the device works: a read of another file
// queues at the volume and goes before the next batch. Their pointers
// change in memory and the next commit makes them reachable, so
// durability is as for buffered data. A batch the volume refuses (no
// space, a failed device) leaves the blocks buffered, for the commit to
// write or to report.

// DefaultWriteThrough is the write size from which a FUSE mount writes
// whole blocks through (cmd/vlfs mount's -o write_through).
const DefaultWriteThrough = 64 << 10

// throughRange is the run of whole blocks [a, b) of a write of [off, end)
// that goes straight to the volume: at least Options.WriteThroughBytes of
// them, none buffered. a == b when there is none, and always on a volume
// that writes in place (no unlocked write-out there: unlockedWriteOut).
func (fs *FS) throughRange(in *inode, off, end uint64) (uint64, uint64) {
	wt := fs.opts.WriteThroughBytes
	bs := uint64(fs.geo.bs)
	a, b := (off+bs-1)/bs, end/bs
	if wt <= 0 || b <= a || (b-a)*bs < uint64(wt) || !fs.unlockedWriteOut() {
		return 0, 0
	}
	for lbn := a; lbn < b; lbn++ {
		if _, ok := in.data[lbn]; ok {
			return 0, 0 // buffered blocks keep the buffered path
		}
	}
	return a, b
}

// writeThrough writes blocks [a, b) of in, which the write has just
// buffered, as one batch without FS.mu during the I/O. It takes FS.mu
// itself. Blocks already written out or changed meanwhile are skipped or
// land superseded, as in any batch.
func (fs *FS) writeThrough(in *inode, a, b uint64) error {
	fs.mu.Lock()
	defer fs.unlock()
	if fs.closed || fs.failed != nil || fs.inodes[in.ino] != in {
		return nil
	}
	var fl []flight
	ws := newFlightWrites()
	for lbn := a; lbn < b; lbn++ {
		if err := fs.pickFlightLocked(&fl, &ws, in, lbn, true); err != nil {
			fs.landFlightsLocked(fl, nil)
			return err
		}
	}
	if len(fl) == 0 {
		return nil
	}
	fs.stats.throughBlocks.Add(int64(len(fl)))
	return fs.flyLocked(fl, ws)
}
