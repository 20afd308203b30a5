package vlfs

import (
	"errors"
	"fmt"
	"math"

	"github.com/vlfs/vlfs/vld"
)

// Buffered file data is written out in batches with FS.mu released while
// the volume writes each one, so that a large write-out (a big fsync, or
// a writer past the dirty limit) holds up no other operation: a read of
// another file resolves its blocks and queues at the volume, whose
// scheduler lets it go before the next write batch (reads first, as in
// Carson and Setia), instead of waiting for the whole write-out.
//
// A batch is a list of buffered blocks ("flights"), picked under FS.mu.
// Their buffers stay in in.data while the volume writes them, so reads,
// seeks and the compactor see the block as buffered, as before; nothing
// changes them in place meanwhile: a change copies the buffer first
// (ownBufLocked), leaving the batch its own, now stale, copy. Back under
// FS.mu, a block whose buffer is still the file's is pointed at its new
// address and unbuffered, exactly as a write-out under FS.mu would do
// it; a block changed, truncated or freed meanwhile ("superseded") keeps
// its newer state, and the new address, which nothing references, is
// freed. Only the identity of the buffer decides: no version counter is
// needed, since every change of a flying buffer replaces it.
//
// Durability is unchanged: as with any write-out before a commit, the new
// addresses become reachable only with the next commit's snapshot.

// flight is one buffered block being written without FS.mu.
type flight struct {
	in      *inode
	lbn     uint64
	buf     []byte
	old     vld.Addr // lbn's address when picked (0: none)
	through bool     // a write-through's block: not worth keeping in the recent cache
	sum     uint32   // buf's data checksum, computed while it flies (summed geometry)
}

// unlockedWriteOut says whether buffered data may be written without
// FS.mu: on every writable volume. In place, a batch writes each block
// over its home, which the committed state references; a block superseded
// while it flies leaves an intermediate version there until the next
// write-out puts the newest over it (landFlightsLocked frees nothing: the
// address is the old one). That is no weaker than in-place write-out
// under the lock, which also overwrites the committed copy before the
// commit (docs/placement.md, "Crash semantics").
func (fs *FS) unlockedWriteOut() bool {
	return !fs.readOnly
}

// writeOutData writes buffered file data in batches of at most writeChunk
// blocks, FS.mu released during each batch's I/O, until at most keep
// bytes remain buffered or nothing more can be picked. With zeros (a
// commit), blocks reserved by fallocate count as buffered and are written
// too, as zero blocks: a gigabyte of them held FS.mu for a second when the
// commit wrote them (issue 31's mixed load). It takes FS.mu itself. A
// volume that refuses a batch for lack of space (or fails) leaves the
// blocks buffered: the next commit, whose write-out may use the reserve,
// writes them or reports the error.
func (fs *FS) writeOutData(keep int64, zeros bool) error {
	if !fs.unlockedWriteOut() {
		return nil
	}
	fs.mu.Lock() // not fs.lock/unlock between batches: no cache shrinking, no early write-out mid-way
	defer fs.unlock()
	if zeros {
		// Version 5: a reservation becomes an unwritten pointer, not a
		// zero block to write (unwritten.go).
		if err := fs.settleReservationsLocked(); err != nil {
			return err
		}
	}
	pending := func() int64 { return fs.pendingBytesLocked(zeros) }
	if pending() <= keep {
		return nil
	}
	// The blocks are listed once, on entry: writers streaming meanwhile
	// must not keep the caller (a commit, an fsync) here for ever, and a
	// list sorted per batch cost a sort of every buffered block per batch.
	// Blocks already flying are not waited for here; a commit waits for
	// those picked before it (waitFlightsLocked).
	todo := fs.dirtyBlocksLocked()
	for len(todo) > 0 && !fs.closed && fs.failed == nil && pending() > keep {
		var fl []flight
		var ws flightWrites
		var err error
		fl, ws, todo, err = fs.pickFlightsLocked(todo, writeChunk, zeros)
		if err != nil || len(fl) == 0 {
			fs.landFlightsLocked(fl, nil)
			return err
		}
		if err := fs.flyLocked(fl, ws); err != nil {
			if errors.Is(err, ErrNoSpace) {
				return nil // the commit's own write-out decides
			}
			return err
		}
	}
	return nil
}

// pendingBytesLocked is what a write-out has to write: the buffered bytes,
// and with zeros the reservations too (a commit writes them as zero
// blocks).
func (fs *FS) pendingBytesLocked(zeros bool) int64 {
	if zeros {
		return fs.reserved * int64(fs.geo.bs) // buffered blocks and reservations
	}
	return fs.dirtyBytes
}

// flyLocked writes a picked batch with FS.mu released during the volume's
// I/O, then lands it. FS.mu is held on entry and on return.
func (fs *FS) flyLocked(fl []flight, ws flightWrites) error {
	fs.stats.batchWrites.Add(1)
	fs.mu.Unlock()
	addrs, werr := fs.vol.WriteBlocks(ws.bufs, ws.opts)
	// A flying buffer never changes (ownBufLocked copies it first), so its
	// checksum is summed here, off FS.mu: at stream rates one CRC per block
	// under the lock is a few per cent of the writer's throughput.
	for i := range fl {
		fl[i].sum = fs.geo.sum(fl[i].buf)
	}
	fs.mu.Lock()
	if werr == nil && len(addrs) != len(fl) {
		werr = fmt.Errorf("volume returned %d addresses for %d blocks: %w", len(addrs), len(fl), ErrCorrupt)
	}
	if werr != nil {
		fs.landFlightsLocked(fl, nil)
		return fs.volErr("write", werr)
	}
	return fs.landFlightsLocked(fl, addrs)
}

// flightWrites are a batch's blocks and hints as WriteBlocks takes them.
type flightWrites struct {
	bufs [][]byte
	opts vld.WriteOpts
}

func newFlightWrites() flightWrites {
	return flightWrites{opts: vld.WriteOpts{Near: []vld.Addr{}, Replaces: []bool{}}}
}

// blockRef names one buffered block of a file.
type blockRef struct {
	in  *inode
	lbn uint64
}

// dirtyBlocksLocked lists every buffered block in inode then block order
// (so that a file's blocks stay one chain, as dataWritesLocked places
// them).
func (fs *FS) dirtyBlocksLocked() []blockRef {
	var out []blockRef
	for _, in := range fs.sortedDirtyLocked() {
		for _, lbn := range sortedLbns(in.data) {
			out = append(out, blockRef{in, lbn})
		}
	}
	return out
}

// pickFlightsLocked picks up to limit blocks of todo that are still
// buffered and not flying, marks them flying and returns the rest of
// todo. With zeros, a reservation becomes a zero block of its own (from
// one slab per batch) and is picked too.
func (fs *FS) pickFlightsLocked(todo []blockRef, limit int, zeros bool) ([]flight, flightWrites, []blockRef, error) {
	var fl []flight
	ws := newFlightWrites()
	var zero func() []byte
	if zeros {
		var slab []byte
		zero = func() []byte {
			if len(slab) == 0 {
				slab = make([]byte, limit*fs.geo.bs)
			}
			b := slab[:fs.geo.bs:fs.geo.bs]
			slab = slab[fs.geo.bs:]
			return b
		}
	}
	for len(todo) > 0 && len(fl) < limit {
		r := todo[0]
		todo = todo[1:]
		if fs.inodes[r.in.ino] != r.in {
			continue // freed while the batch before flew
		}
		if err := fs.pickBlockLocked(&fl, &ws, r.in, r.lbn, false, zero); err != nil {
			return fl, ws, todo, err
		}
	}
	return fl, ws, todo, nil
}

// pickFlightLocked adds in's buffered block lbn to the batch and marks it
// flying, unless it is not buffered, already flying, or a bare
// reservation (a shared zero block: the commit's to write). through marks
// a write-through's block.
func (fs *FS) pickFlightLocked(fl *[]flight, ws *flightWrites, in *inode, lbn uint64, through bool) error {
	return fs.pickBlockLocked(fl, ws, in, lbn, through, nil)
}

// pickBlockLocked is pickFlightLocked that, given zero, also picks a
// reservation: zero() becomes the block's buffer (a zero block it counts
// as buffered, written like any other and kept out of the recent cache).
func (fs *FS) pickBlockLocked(fl *[]flight, ws *flightWrites, in *inode, lbn uint64, through bool, zero func() []byte) error {
	buf, ok := in.data[lbn]
	if !ok || buf == nil && zero == nil {
		return nil
	}
	if buf == nil {
		buf = zero()
		in.data[lbn] = buf
		fs.dirtyBytes += int64(fs.geo.bs)
		through = true
	}
	if _, ok := fs.flying[&buf[0]]; ok {
		return nil
	}
	if err := fs.prepareLocked(in, lbn); err != nil {
		return err
	}
	old, err := fs.bmapLocked(in, lbn)
	if err != nil {
		return err
	}
	near, rep := fs.nearLocked(in, lbn)
	if n := len(*fl); !rep && n > 0 && (*fl)[n-1].in == in && (*fl)[n-1].lbn == lbn-1 {
		near = ws.opts.Near[n-1] // follows the previous block, as one chain
	}
	fs.flights++
	fs.flying[&buf[0]] = fs.flights
	*fl = append(*fl, flight{in: in, lbn: lbn, buf: buf, old: old, through: through})
	ws.bufs = append(ws.bufs, buf)
	ws.opts.Near = append(ws.opts.Near, near)
	ws.opts.Replaces = append(ws.opts.Replaces, rep)
	return nil
}

// landFlightsLocked ends the flights: with addrs (the batch was written),
// each block still buffered as picked is pointed at its new address and
// unbuffered, and the address of a superseded one is freed; without
// (nothing was written), they are only no longer flying.
func (fs *FS) landFlightsLocked(fl []flight, addrs []vld.Addr) error {
	var first error
	if len(fl) > 0 {
		defer fs.landed.Broadcast()
	}
	// Every free here is of a copy nothing durable names (a superseded or
	// dropped new block) or of a landed block's old copy: a record may
	// stand for all of them (records.go).
	n0 := fs.rec.freed
	defer func() { fs.rec.frees += fs.rec.freed - n0 }()
	for i, f := range fl {
		delete(fs.flying, &f.buf[0])
		if addrs == nil {
			continue
		}
		a := addrs[i]
		cur, ok := f.in.data[f.lbn]
		live := ok && cur != nil && &cur[0] == &f.buf[0] && fs.inodes[f.in.ino] == f.in
		if !live {
			fs.stats.supersededBlocks.Add(1)
			if a != f.old { // a new block nothing references
				fs.freeBlockLocked(a)
			}
			continue
		}
		if err := fs.prepareLocked(f.in, f.lbn); err != nil {
			// The path is no longer loadable: the block stays buffered
			// and the new copy is dropped; the commit will report it.
			fs.freeBlockLocked(a)
			first = errors.Join(first, err)
			continue
		}
		if err := fs.setPtrLocked(f.in, f.lbn, a, f.sum); err != nil {
			first = errors.Join(first, err)
			continue
		}
		fs.logLandingLocked(f.in, f.lbn, a, f.sum)
		fs.forgetDirtyLocked(f.in, f.lbn, f.buf)
		if f.through {
			// A stream's blocks would only push out what is worth keeping
			// (and each would keep its write's whole slab alive).
			fs.cm.recent.drop(a)
		} else {
			fs.cm.recent.put(a, f.buf) // no longer the file's buffer: never changed again
		}
	}
	return first
}

// waitFlightsLocked waits until every batch picked before the call has
// landed, so that a commit does not write their blocks a second time
// under FS.mu. Batches picked meanwhile are not waited for: a stream of
// write-throughs cannot hold a commit off.
func (fs *FS) waitFlightsLocked() {
	upTo := fs.flights
	for {
		oldest := uint64(math.MaxUint64)
		for _, n := range fs.flying {
			oldest = min(oldest, n)
		}
		if oldest > upTo {
			return
		}
		fs.landed.Wait()
	}
}

// ownBufLocked returns in's buffer of block lbn, b, ready to be changed in
// place: a buffer a batch is writing without FS.mu is copied first, and
// the copy becomes the file's (writeout_batch.go).
func (fs *FS) ownBufLocked(in *inode, lbn uint64, b []byte) []byte {
	if b == nil {
		return b
	}
	if _, ok := fs.flying[&b[0]]; !ok {
		return b
	}
	nb := make([]byte, len(b))
	copy(nb, b)
	in.data[lbn] = nb
	return nb
}
